import type { RouteObject } from 'react-router';
import { Account, ForgotPassword, Login, Register, Verify } from './Account.tsx';

export const accountRoutes: RouteObject[] = [
  { path: 'login', element: <Login /> },
  { path: 'register', element: <Register /> },
  { path: 'verify', element: <Verify /> },
  { path: 'forgot-password', element: <ForgotPassword /> },
  { path: 'account', element: <Account /> },
];
