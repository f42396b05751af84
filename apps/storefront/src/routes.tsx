import { lazy, Suspense } from 'react';
import { createBrowserRouter } from 'react-router';
import { Layout } from './components/Layout.tsx';
import { Skeleton } from './components/States.tsx';
import { accountRoutes } from './pages/account/routes.tsx';
import { CartPage } from './pages/Cart.tsx';
import { CollectionPage } from './pages/Collection.tsx';
import { Home } from './pages/Home.tsx';
import { NotFound } from './pages/NotFound.tsx';
import { ProductPage } from './pages/Product.tsx';
import { ProductsPage } from './pages/Products.tsx';
import { ThankYou } from './pages/ThankYou.tsx';

// The merchant console is its own chunk: shoppers never download it.
const Console = lazy(() => import('./merchant/Console.tsx'));

export const router = createBrowserRouter([
  {
    element: <Layout />,
    children: [
      { index: true, element: <Home /> },
      { path: 'products', element: <ProductsPage /> },
      { path: 'products/:slug', element: <ProductPage /> },
      { path: 'collections/:slug', element: <CollectionPage /> },
      { path: 'cart', element: <CartPage /> },
      { path: 'thank-you', element: <ThankYou /> },
      ...accountRoutes,
      {
        path: 'merchant/*',
        element: (
          <Suspense fallback={<Skeleton lines={6} label="Loading the merchant console" />}>
            <Console />
          </Suspense>
        ),
      },
      { path: '*', element: <NotFound /> },
    ],
  },
]);
