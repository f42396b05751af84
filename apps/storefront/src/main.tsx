import { ShopkitProvider } from '@shopkit/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { router } from './routes.tsx';
import { client, queryClient } from './shop.ts';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <ShopkitProvider client={client}>
        <RouterProvider router={router} />
      </ShopkitProvider>
    </QueryClientProvider>
  </StrictMode>,
);
