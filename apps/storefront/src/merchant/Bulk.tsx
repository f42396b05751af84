import { type BulkAdjust, type BulkResult, type BulkSet, type Product, products } from '@shopkit/sdk';
import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { ErrorState, Skeleton } from '../components/States.tsx';
import { money } from '../format.ts';
import { useMerchant, useRefresh } from './context.ts';
import { useAllProducts } from './Products.tsx';

type Property = 'price' | 'cost' | 'weight';
type Mode = 'set' | 'amount' | 'percentage';

const current = (p: Product, prop: Property) =>
  prop === 'price' ? p.priceData?.price : prop === 'cost' ? p.costAndProfitData?.itemCost : p.weight;

/** What the platform will compute (preview only; the server's answer is what is stored). */
export function preview(value: number | undefined, mode: Mode, n: number, round: boolean) {
  const v = value ?? 0;
  let out = mode === 'set' ? n : mode === 'amount' ? v + n : v * (1 + n / 100);
  if (mode === 'percentage' && round) out = Math.round(out);
  return Math.max(0, Math.round(out * 100) / 100);
}

const show = (prop: Property, v: number | undefined) =>
  v === undefined ? '—' : prop === 'weight' ? `${v} kg` : money(v);

export function Bulk() {
  const client = useMerchant();
  const refresh = useRefresh();
  const list = useAllProducts();
  const id = useId();
  const [selected, setSelected] = useState<string[]>([]);
  const [prop, setProp] = useState<Property>('price');
  const [mode, setMode] = useState<Mode>('percentage');
  const [amount, setAmount] = useState('10');
  const [round, setRound] = useState(false);
  const n = Number(amount);
  const valid = amount.trim() !== '' && Number.isFinite(n) && selected.length > 0;
  const apply = useMutation({
    mutationFn: (): Promise<BulkResult> => {
      if (mode === 'set')
        return products.bulkUpdateProductsProperty(client, selected, { [prop]: n } as BulkSet);
      const adj = mode === 'amount' ? { amount: n } : { percentage: { rate: n, roundToInt: round } };
      return products.bulkAdjustProductProperty(client, { [prop]: adj } as BulkAdjust, selected);
    },
    onSuccess: refresh,
  });
  if (list.isPending) return <Skeleton lines={8} label="Loading products" />;
  if (list.error) return <ErrorState error={list.error} retry={() => list.refetch()} />;
  const rows = list.data;
  const toggle = (pid: string, on: boolean) =>
    setSelected((s) => (on ? [...s, pid] : s.filter((x) => x !== pid)));
  const r = apply.data?.bulkActionMetadata;
  return (
    <div className="panel">
      <h2>Bulk price, cost and weight</h2>
      <div className="row">
        <div className="field">
          <label htmlFor={`${id}-prop`}>Property</label>
          <select id={`${id}-prop`} value={prop} onChange={(e) => setProp(e.target.value as Property)}>
            <option value="price">Price</option>
            <option value="cost">Cost</option>
            <option value="weight">Weight</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-mode`}>Change</label>
          <select id={`${id}-mode`} value={mode} onChange={(e) => setMode(e.target.value as Mode)}>
            <option value="set">Set to</option>
            <option value="amount">Adjust by an amount</option>
            <option value="percentage">Adjust by a percentage</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-n`}>{mode === 'percentage' ? 'Percent' : 'Value'}</label>
          <input
            id={`${id}-n`}
            type="number"
            step="0.01"
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
          />
        </div>
        {mode === 'percentage' && (
          <div className="field checkbox">
            <input
              id={`${id}-round`}
              type="checkbox"
              checked={round}
              onChange={(e) => setRound(e.target.checked)}
            />
            <label htmlFor={`${id}-round`}>Round to whole numbers</label>
          </div>
        )}
      </div>
      <div className="table-wrap">
        <table className="table" aria-label="Preview">
          <thead>
            <tr>
              <th scope="col">
                <input
                  type="checkbox"
                  aria-label="Select all products"
                  checked={selected.length === rows.length}
                  onChange={(e) => setSelected(e.target.checked ? rows.map((p) => p.id) : [])}
                />
              </th>
              <th scope="col">Product</th>
              <th scope="col">Now</th>
              <th scope="col">After</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((p) => {
              const on = selected.includes(p.id);
              const now = current(p, prop);
              return (
                <tr key={p.id} className={on ? 'selected' : ''}>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`Select ${p.name}`}
                      checked={on}
                      onChange={(e) => toggle(p.id, e.target.checked)}
                    />
                  </td>
                  <th scope="row">{p.name}</th>
                  <td>{show(prop, now)}</td>
                  <td>
                    {on && Number.isFinite(n) && amount !== ''
                      ? show(prop, preview(now, mode, n, round))
                      : ''}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {apply.error && <ErrorState error={apply.error} title="Nothing was changed" />}
      <div aria-live="polite">
        {r && (
          <p className={`notice ${r.totalFailures ? 'notice-error' : 'notice-ok'}`}>
            Updated {r.totalSuccesses} {r.totalSuccesses === 1 ? 'product' : 'products'}
            {r.totalFailures ? `; ${r.totalFailures} failed.` : '.'}
          </p>
        )}
      </div>
      <button
        type="button"
        className="button button-primary"
        disabled={!valid || apply.isPending}
        onClick={() => apply.mutate()}
      >
        Apply to {selected.length} {selected.length === 1 ? 'product' : 'products'}
      </button>
    </div>
  );
}
