import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ErrorText, Loading } from './ui.tsx';

/**
 * A screen loaded when it is first shown (its own script chunk: the graph renderer, the chart
 * library and rrule stay out of the first screen's download).
 */
export function lazy(load: () => Promise<FunctionComponent>): FunctionComponent {
  let loaded: FunctionComponent | undefined;
  return function Lazy() {
    const [component, setComponent] = useState<{ c: FunctionComponent } | undefined>(loaded && { c: loaded });
    const [error, setError] = useState<string | null>(null);
    useEffect(() => {
      if (component) return;
      load().then((c) => {
        loaded = c;
        setComponent({ c });
      }, () => setError('This screen could not be loaded; reload the page.'));
    }, []);
    if (error) return <ErrorText error={error} />;
    return component ? <component.c /> : <Loading />;
  };
}
