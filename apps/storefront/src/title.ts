import { useEffect } from 'react';

/** Sets the document title (announced by screen readers on navigation). */
export function useTitle(title: string | undefined) {
  useEffect(() => {
    if (title) document.title = title === 'Loom & Kiln' ? title : `${title} · Loom & Kiln`;
  }, [title]);
}
