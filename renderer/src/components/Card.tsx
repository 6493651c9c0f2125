import type { ComponentProps, ReactNode } from 'react';
import { Group, Text, Title } from '@mantine/core';

export interface CardProps extends Omit<ComponentProps<'section'>, 'title' | 'id' | 'className'> {
  /** The heading's id: the section is labelled by it. */
  id: string;
  title: ReactNode;
  /** A dimmed line under the heading saying what the card is for. */
  hint?: ReactNode;
  /** Beside the heading, at the far end: a link or a button of the card. */
  aside?: ReactNode;
  /** The space under the heading (without `aside`). */
  titleGap?: 'xs' | 'sm';
}

/** A card of a screen: a section labelled by its h2 heading, an optional hint under it, then its content. */
export function Card({ id, title, hint, aside, titleGap = 'xs', children, ...rest }: CardProps) {
  const heading = (
    <Title order={2} size="h5" id={id} mb={aside === undefined ? titleGap : undefined}>
      {title}
    </Title>
  );
  return (
    <section className="pp-card" aria-labelledby={id} {...rest}>
      {aside === undefined ? (
        heading
      ) : (
        <Group justify="space-between" mb="xs">
          {heading}
          {aside}
        </Group>
      )}
      {hint !== undefined && (
        <Text size="sm" c="dimmed" mb="sm">
          {hint}
        </Text>
      )}
      {children}
    </section>
  );
}
