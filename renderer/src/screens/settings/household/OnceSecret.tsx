import { Code, Group, Text } from '@mantine/core';
import { CopyButton } from '../../../components/common';

/** A code shown once, large and selectable, with a copy button. */
export function OnceSecret({ value, label, copyLabel, testId }: { value: string; label: string; copyLabel: string; testId: string }) {
  return (
    <div>
      <Text size="sm" fw={500} mb={4}>
        {label}
      </Text>
      <Group gap="xs" wrap="nowrap">
        <Code fz="lg" px="sm" py={6} data-testid={testId} aria-label={label}>
          {value}
        </Code>
        <CopyButton value={value} label={copyLabel} />
      </Group>
    </div>
  );
}
