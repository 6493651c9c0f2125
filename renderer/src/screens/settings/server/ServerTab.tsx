import { Stack } from '@mantine/core';
import { About } from './About';
import { NetworkSettings } from './NetworkSettings';
import { SyncSettings } from './SyncSettings';

export function ServerTab({ manager }: { manager: boolean }) {
  return (
    <Stack>
      {manager && <NetworkSettings />}
      <SyncSettings />
      <About />
    </Stack>
  );
}
