import type { ReactNode } from 'react';
import { Tabs } from '@mantine/core';
import { navigate, useSearchParam } from '../lib/router';

export interface RoutedTab {
  value: string;
  label: string;
  panel: ReactNode;
}

/**
 * Tabs whose choice lives in the URL (`?tab=…`; none for the first tab), so a tab can be linked
 * to and survives a reload. Only the open tab is mounted. At least one tab (the type says so).
 */
export function RoutedTabs({ path, tabs }: { path: string; tabs: readonly [RoutedTab, ...RoutedTab[]] }) {
  const param = useSearchParam('tab');
  const first = tabs[0].value;
  const current = tabs.some((tab) => tab.value === param) ? (param as string) : first;
  return (
    <Tabs value={current} onChange={(v) => navigate(!v || v === first ? path : `${path}?tab=${v}`, { replace: true })} keepMounted={false}>
      <Tabs.List mb="md">
        {tabs.map((tab) => (
          <Tabs.Tab key={tab.value} value={tab.value}>
            {tab.label}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {tabs.map((tab) => (
        <Tabs.Panel key={tab.value} value={tab.value}>
          {tab.panel}
        </Tabs.Panel>
      ))}
    </Tabs>
  );
}
