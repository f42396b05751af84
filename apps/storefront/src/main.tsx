import { ShopkitProvider } from '@shopkit/react';
import { collections, createClient, OAuthStrategy, webStorage } from '@shopkit/sdk';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { config } from './config.ts';

const client = createClient({
  baseUrl: config.baseUrl,
  auth: OAuthStrategy({ clientId: config.clientId, storage: webStorage(localStorage, config.clientId) }),
  modules: { collections },
});
const queryClient = new QueryClient();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <ShopkitProvider client={client}>
        <App />
      </ShopkitProvider>
    </QueryClientProvider>
  </StrictMode>,
);
