import { type BulkResult, products } from '@shopkit/sdk';
import { useId, useRef, useState } from 'react';
import { ErrorState, Skeleton } from '../components/States.tsx';
import { count, few } from '../format.ts';
import { useTitle } from '../title.ts';
import {
  applyChange,
  type BulkCalls,
  type Change,
  checkValue,
  current,
  failures,
  type Mode,
  PLACES,
  type Property,
  preview,
  RATE_PLACES,
  sendOrSkip,
  show,
  whyRefused,
} from './bulk.ts';
import { consoleTitle, unavailable, useMerchant, useUnsaved, useWrite } from './context.ts';
import { useAllProducts } from './Products.tsx';
import { StaleList } from './Stale.tsx';

/** The name of each product a change was applied to, by id. */
type Names = ReadonlyMap<string, string>;

export function Bulk() {
  useTitle(consoleTitle('Bulk edit'));
  const client = useMerchant();
  const list = useAllProducts();
  const id = useId();
  const [selected, setSelected] = useState<string[]>([]);
  const [prop, setProp] = useState<Property>('price');
  const [mode, setMode] = useState<Mode>('percentage');
  const [amount, setAmount] = useState('10');
  const [round, setRound] = useState(false);
  // Narrows the rows shown (and what "Select all" takes); products chosen stay chosen.
  const [filter, setFilter] = useState('');
  // Products chosen or the change edited since the last change applied: leaving loses them.
  const [edited, setEdited] = useState(false);
  useUnsaved(() => edited && selected.length > 0 && 'the bulk change');
  const change: Change = { prop, mode, value: Number(amount), round };
  const calls: BulkCalls = {
    update: (ids, set) => products.bulkUpdateProductsProperty(client, ids, set),
    adjust: (adjust, ids) => products.bulkAdjustProductProperty(client, adjust, ids),
  };
  const heading = useRef<HTMLHeadingElement>(null);
  const apply = useWrite(
    async ({ c, ids, skipped, names }: { c: Change; ids: string[]; skipped: string[]; names: Names }) => ({
      c,
      skipped,
      names,
      result: await applyChange(calls, ids, c),
    }),
  );
  // The platform's refusal of the whole change: of the value, said beside it as the form's own check.
  const refused = apply.error ? whyRefused(apply.error) : undefined;
  const problem =
    checkValue(amount, mode, prop) ?? (refused && 'value' in refused ? refused.value : undefined);
  if (list.isPending) return <Skeleton lines={8} label="Loading products" />;
  // Only when there is no list to show: a list read again that failed after a change that is
  // stored (the change's result, the preview and the choice stay; applying an adjustment again
  // would change the prices twice) keeps the last one shown, and says so (`StaleList`).
  if (!list.data) return <ErrorState error={list.error!} retry={() => list.refetch()} />;
  const all = list.data;
  const wanted = filter.trim().toLowerCase();
  const rows = wanted ? all.filter((p) => p.name.toLowerCase().includes(wanted)) : all;
  const byId = new Map(all.map((p) => [p.id, p]));
  // Only products still in the list count: one deleted elsewhere since it was ticked is gone.
  const chosen = selected.flatMap((pid) => byId.get(pid) ?? []);
  // A new change makes the last result stale: it goes.
  const edit = <T,>(setter: (v: T) => void, v: T) => {
    if (!apply.isPending) apply.reset();
    setEdited(true);
    setter(v);
  };
  const choose = (ids: (s: string[]) => string[]) => {
    setEdited(true);
    setSelected(ids);
  };
  const toggle = (pid: string, on: boolean) => choose((s) => (on ? [...s, pid] : s.filter((x) => x !== pid)));
  const shownIds = new Set(rows.map((p) => p.id));
  // Chosen products the filter hides: they are changed too, so the page says how many.
  const hidden = chosen.filter((p) => !shownIds.has(p.id)).length;
  const allShown = rows.length > 0 && rows.every((p) => selected.includes(p.id));
  const start = () => {
    if (apply.isPending) return;
    const { ids, skipped } = sendOrSkip(chosen, change);
    // On its way, it is no longer something leaving loses: another page of the console lets it
    // finish. A change edited meanwhile, or one that fails, is.
    setEdited(false);
    // Each product's name as it was applied to: one deleted elsewhere meanwhile (it fails) has
    // left the list read again after the change, and was named by its id.
    const names: Names = new Map(chosen.map((p) => [p.id, p.name]));
    // Some failed: the products changed are no longer chosen, those that failed (and those skipped)
    // still are. Applying an adjustment again, once the failures' cause is mended, changed the
    // products that had succeeded a second time.
    const kept = ({ result }: { result: BulkResult }) => {
      if (!result.bulkActionMetadata.totalFailures) return;
      const changed = new Set(
        result.results.flatMap((x) => (x.itemMetadata.success ? [x.itemMetadata.id] : [])),
      );
      setSelected((s) => s.filter((pid) => !changed.has(pid)));
    };
    apply.run({ c: change, ids, skipped, names }, kept, (e) => {
      setEdited(true);
      if ('value' in whyRefused(e)) document.getElementById(`${id}-n`)?.focus();
    });
  };
  const done = apply.data;
  const r = done?.result.bulkActionMetadata;
  const failed = done
    ? failures(done.result, done.c.prop, (pid) => byId.get(pid)?.name ?? done.names.get(pid) ?? pid)
    : [];
  const places = mode === 'percentage' ? RATE_PLACES : PLACES[prop];
  return (
    <div className="panel">
      <h2 ref={heading} tabIndex={-1}>
        Bulk price, cost and weight
      </h2>
      {list.error && <StaleList what="products" retry={() => list.refetch()} after={heading} />}
      <div className="row">
        <div className="field">
          <label htmlFor={`${id}-prop`}>Property</label>
          <select id={`${id}-prop`} value={prop} onChange={(e) => edit(setProp, e.target.value as Property)}>
            <option value="price">Price</option>
            <option value="cost">Cost</option>
            <option value="weight">Weight</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-mode`}>Change</label>
          <select id={`${id}-mode`} value={mode} onChange={(e) => edit(setMode, e.target.value as Mode)}>
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
            step={10 ** -places}
            value={amount}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `${id}-n-error` : undefined}
            onChange={(e) => edit(setAmount, e.target.value)}
          />
          {problem && (
            <p id={`${id}-n-error`} className="field-error">
              {problem}
            </p>
          )}
        </div>
        {mode === 'percentage' && (
          <div className="field checkbox">
            <input
              id={`${id}-round`}
              type="checkbox"
              checked={round}
              onChange={(e) => edit(setRound, e.target.checked)}
            />
            <label htmlFor={`${id}-round`}>Round to whole numbers</label>
          </div>
        )}
      </div>
      <p className="muted">
        {prop === 'price'
          ? 'Variants with their own prices change too; setting a price replaces them.'
          : mode === 'set'
            ? `Setting gives every chosen product this ${prop}, those without one too.`
            : `Products without a ${prop} are skipped: the platform leaves them as they are.`}
      </p>
      <div className="field">
        <label htmlFor={`${id}-filter`}>Filter products by name</label>
        <input id={`${id}-filter`} type="search" value={filter} onChange={(e) => setFilter(e.target.value)} />
      </div>
      <p className="muted" aria-live="polite">
        {wanted
          ? rows.length
            ? `${rows.length} of ${count(all.length, 'product')} match “${filter.trim()}”.`
            : `No product of the ${all.length} matches “${filter.trim()}”.`
          : count(all.length, 'product')}
        {hidden > 0 &&
          ` ${count(hidden, 'chosen product')} not shown ${hidden === 1 ? 'is' : 'are'} changed too.`}
      </p>
      <div className="table-wrap">
        <table className="table" aria-label="Preview">
          <thead>
            <tr>
              <th scope="col">
                <input
                  type="checkbox"
                  aria-label={wanted ? 'Select all products shown' : 'Select all products'}
                  checked={allShown}
                  // With a filter it takes (or leaves) the products shown; the others keep their choice.
                  onChange={(e) =>
                    choose((s) =>
                      e.target.checked
                        ? [...s.filter((x) => !shownIds.has(x)), ...rows.map((p) => p.id)]
                        : s.filter((x) => !shownIds.has(x)),
                    )
                  }
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
              const after = on && !problem ? preview(p, change) : undefined;
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
                  <td>{show(prop, current(p, prop))}</td>
                  <td>
                    {after && (
                      <span
                        className={
                          after.kind === 'ok' ? undefined : after.kind === 'refuse' ? 'field-error' : 'muted'
                        }
                      >
                        {after.text}
                      </span>
                    )}
                    {after?.kind === 'ok' && after.note && (
                      <>
                        <br />
                        <small className="muted">{after.note}</small>
                      </>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {refused && 'text' in refused && (
        <p className="notice notice-error" role="alert">
          {refused.text}
        </p>
      )}
      <div aria-live="polite">
        {done && r && (
          <div className={`notice ${r.totalFailures ? 'notice-error' : 'notice-ok'}`}>
            <p>
              Updated {count(r.totalSuccesses, 'product')}
              {r.totalFailures ? `; ${r.totalFailures} failed.` : '.'}
              {done.skipped.length > 0 && ` Skipped ${few(done.skipped)} (no ${done.c.prop}).`}
              {r.totalFailures > 0 &&
                r.totalSuccesses > 0 &&
                ' The products updated are no longer chosen: applying again changes only those still chosen.'}
            </p>
            {failed.length > 0 && (
              <ul aria-label="Failed products">
                {failed.map((f) => (
                  <li key={f.why}>
                    {f.names.join(', ')}: {f.why}.
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
      </div>
      <button
        type="button"
        className="button button-primary"
        disabled={!!problem || chosen.length === 0}
        {...unavailable(apply.isPending)}
        onClick={start}
      >
        {apply.isPending ? 'Applying…' : `Apply to ${count(chosen.length, 'product')}`}
      </button>
    </div>
  );
}
