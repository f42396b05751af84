import { useEffect } from 'react';

/**
 * Sets the document title (announced by screen readers on navigation). `undefined` while the
 * page's data loads: the title says so, rather than keep the name of the page before it.
 */
export function useTitle(title: string | undefined) {
  useEffect(() => {
    const t = title || 'Loading…';
    document.title = t === 'Loom & Kiln' ? t : `${t} · Loom & Kiln`;
  }, [title]);
}
