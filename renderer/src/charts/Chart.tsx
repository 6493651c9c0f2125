import { lazy, Suspense } from 'react';
import { Skeleton } from '@mantine/core';
import type { EChartsOption } from './types';

const EChart = lazy(() => import('./EChart'));

/** A chart, loaded on demand (ECharts lives in its own chunk). `label` is its accessible name. */
export function Chart(props: { option: EChartsOption; className?: string; label: string }) {
  return (
    <Suspense fallback={<Skeleton className={props.className ?? 'pp-chart'} aria-label={props.label} />}>
      <EChart {...props} />
    </Suspense>
  );
}
