import type { AnyClient } from '@shopkit/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { createContext, useContext } from 'react';

export const MerchantContext = createContext<AnyClient | null>(null);

export function useMerchant() {
  const c = useContext(MerchantContext);
  if (!c) throw new Error('useMerchant must be used inside the console.');
  return c;
}

/** After a write: refetch the console's lists and the shop's cached catalog. */
export function useRefresh() {
  const qc = useQueryClient();
  return () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: ['merchant'] }),
      qc.invalidateQueries({ queryKey: ['shopkit'] }),
    ]);
}
