import type { ReactNode } from 'react';
import { ActionIcon, Alert, Button, CopyButton as MantineCopyButton, Group, Table, Text, Title, Tooltip } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useErrorText } from '../lib/errors';
import { useFormat } from '../lib/format';
import { Icon } from './icons';

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <header className="pp-page-header">
      <Title order={1} size="h2">
        {title}
      </Title>
      {children && <Group gap="sm">{children}</Group>}
    </header>
  );
}

/** An API error next to what caused it, with an optional retry. */
export function ErrorNote({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useTranslation();
  const text = useErrorText();
  if (!error) return null;
  return (
    <Alert color="red" role="alert" my="xs">
      <Group justify="space-between" wrap="nowrap">
        <span>{text(error)}</span>
        {onRetry && (
          <Button size="xs" variant="white" color="red" onClick={onRetry}>
            {t('common.retry')}
          </Button>
        )}
      </Group>
    </Alert>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="pp-empty">{children}</div>;
}

/** An amount coloured by record type (income +, expense −). */
export function Amount({ amount, currency, type, className }: { amount: number; currency: string; type?: string; className?: string }) {
  const f = useFormat();
  const signed = type === 'expense' ? -Math.abs(amount) : type === 'income' ? Math.abs(amount) : amount;
  const cls = type === 'income' ? 'pp-income' : type === 'expense' ? 'pp-expense' : type === 'transfer' ? 'pp-transfer' : '';
  return <span className={`pp-num ${cls} ${className ?? ''}`}>{f.money(signed, currency, { sign: type === 'income' || type === 'expense' })}</span>;
}

export function CopyButton({ value, label }: { value: string; label: string }) {
  const { t } = useTranslation();
  return (
    <MantineCopyButton value={value} timeout={1500}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? t('common.copied') : label} withArrow>
          <ActionIcon variant={copied ? 'filled' : 'default'} onClick={copy} aria-label={label}>
            <Icon name="copy" size={16} />
          </ActionIcon>
        </Tooltip>
      )}
    </MantineCopyButton>
  );
}

export function ProgressBar({ value, label, tone }: { value: number; label: string; tone?: 'expense' }) {
  const pct = Math.max(0, Math.min(100, value));
  return (
    <div className="pp-bar-track" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(pct)}>
      <div className={`pp-bar-fill ${tone === 'expense' ? 'pp-expense-fill' : ''}`} style={{ width: `${pct}%` }} />
    </div>
  );
}

/** The end of a dialog's form: its error (if any) above Cancel and the submit button. */
export function FormActions({ error, onCancel, busy, disabled, submitLabel }: { error?: ReactNode; onCancel: () => void; busy: boolean; disabled?: boolean; submitLabel: string }) {
  const { t } = useTranslation();
  return (
    <>
      {error ? (
        <Text c="red" size="sm" role="alert">
          {error}
        </Text>
      ) : null}
      <Group justify="flex-end">
        <Button variant="default" onClick={onCancel}>
          {t('common.cancel')}
        </Button>
        <Button type="submit" loading={busy} disabled={disabled}>
          {submitLabel}
        </Button>
      </Group>
    </>
  );
}

/** The header cell of a table's row-actions column: no visible title, named for screen readers. */
export function ActionsHeader({ width }: { width: number }) {
  const { t } = useTranslation();
  return (
    <Table.Th w={width}>
      <span className="pp-visually-hidden">{t('assets.actions')}</span>
    </Table.Th>
  );
}
