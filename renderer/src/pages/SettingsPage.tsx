import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ActionIcon, Alert, Badge, Button, Checkbox, Code, Group, Modal, Pagination, PasswordInput, Progress, SegmentedControl, Select, Skeleton, Stack, Switch, Table, TagsInput, Text, TextInput, Title, useMantineColorScheme } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { ApiCallError, call, type ResultOf } from '../api/client';
import { Empty, ErrorNote, PageHeader } from '../components/common';
import { Icon } from '../components/icons';
import { checkFields, NumberField, useNumberField } from '../components/NumberField';
import { LanguageSelect } from '../components/Prefs';
import { isManager, useAuth } from '../lib/auth';
import { CURRENCIES } from '../lib/currencies';
import { invalidate, useAction, useApi } from '../lib/data';
import { useErrorText } from '../lib/errors';
import { fromDateInput, timeZone, toDateInput, useFormat } from '../lib/format';
import { useCategories, type Category } from '../lib/ledger';
import { navigate } from '../lib/router';
import { RoutedTabs } from '../components/RoutedTabs';
import BackupsPanel, { JsonRestore } from './BackupsPanel';
import HouseholdPanel, { RoleBadge } from './HouseholdPanel';
import { ChangePasswordForm } from './PasswordPage';

/**
 * Settings. Everyone has their own preferences, account, currencies, categories, data and sync;
 * the server itself (network, snapshots, the household and who may sign up) is only for the owner
 * and admins — members never see it, nor call its owner-only actions.
 */
export default function SettingsPage() {
  const { t } = useTranslation();
  const { session } = useAuth();
  const manager = isManager(session);
  return (
    <div className="pp-page">
      <PageHeader title={t('settings.title')} />
      <RoutedTabs
        path="/settings"
        tabs={[
          { value: 'general', label: t('settings.tabs.general'), panel: <General /> },
          { value: 'currency', label: t('settings.tabs.currency'), panel: <Currency /> },
          { value: 'categories', label: t('settings.tabs.categories'), panel: <Categories /> },
          { value: 'data', label: t('settings.tabs.data'), panel: <ImportExport withJsonRestore={!manager} /> },
          ...(manager
            ? [
                { value: 'backups', label: t('backups.tab'), panel: <BackupsPanel /> },
                { value: 'household', label: t('settings.tabs.household'), panel: <HouseholdPanel /> },
              ]
            : []),
          { value: 'server', label: manager ? t('settings.tabs.server') : t('settings.tabs.syncAbout'), panel: <Server manager={manager} /> },
        ]}
      />
    </div>
  );
}

/* ------------------------------------------------------------------ general */

function General() {
  const { t } = useTranslation();
  const f = useFormat();
  const { session, signOut } = useAuth();
  const { colorScheme, setColorScheme } = useMantineColorScheme({ keepTransitions: true });
  return (
    <Stack>
      <section className="pp-card" aria-labelledby="set-appearance">
        <Title order={2} size="h5" id="set-appearance" mb="sm">
          {t('settings.appearance')}
        </Title>
        <Group align="flex-end" gap="xl">
          <div>
            <Text size="sm" fw={500} mb={4} id="lang-label">
              {t('nav.language')}
            </Text>
            <LanguageSelect />
          </div>
          <div>
            <Text size="sm" fw={500} mb={4} id="theme-label">
              {t('settings.theme')}
            </Text>
            <SegmentedControl
              aria-labelledby="theme-label"
              value={colorScheme}
              onChange={(v) => setColorScheme(v as 'light' | 'dark' | 'auto')}
              data={[
                { value: 'light', label: t('settings.themes.light') },
                { value: 'dark', label: t('settings.themes.dark') },
                { value: 'auto', label: t('settings.themes.auto') },
              ]}
            />
          </div>
        </Group>
      </section>
      <section className="pp-card" aria-labelledby="set-account">
        <Title order={2} size="h5" id="set-account" mb="sm">
          {t('settings.account')}
        </Title>
        <Group gap="xs">
          <Text size="sm">
            {session?.user.username}
            {session?.user.email ? ` · ${session.user.email}` : ''}
          </Text>
          {session?.user.role && <RoleBadge role={session.user.role} />}
        </Group>
        <Text size="xs" c="dimmed" mb="sm">
          {session && t('settings.sessionUntil', { date: f.date(session.expiresAt, 'datetime') })}
        </Text>
        <Button variant="default" leftSection={<Icon name="logout" size={16} />} onClick={() => void signOut()}>
          {t('nav.logout')}
        </Button>
        <Title order={3} size="h6" mt="lg" mb="xs" id="set-password">
          {t('auth.changePassword')}
        </Title>
        <div style={{ maxWidth: 360 }}>
          <ChangePasswordForm submitLabel={t('auth.changePassword')} onDone={() => notifications.show({ color: 'teal', message: t('auth.passwordChanged') })} />
        </div>
      </section>
    </Stack>
  );
}

/* ------------------------------------------------------------------ currency */

function Currency() {
  const { t } = useTranslation();
  const f = useFormat();
  const errorText = useErrorText();
  const base = useApi('currency.get', {});
  const rates = useApi('currency.listRates', {});
  const setBase = useAction();
  const [from, setFrom] = useState<string | null>('USD');
  const [to, setTo] = useState<string | null>(null);
  const rate = useNumberField({ kind: 'rate' });
  const [date, setDate] = useState(toDateInput(Date.now()));
  const add = useAction();
  const remove = useAction();
  const baseCurrency = base.data?.baseCurrency ?? 'USD';
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!from || !checkFields(rate) || !rate.parsed.ok) return;
    const exact = rate.parsed.text; // the decimal as typed, without grouping: rates travel as exact text
    const day = fromDateInput(date);
    const ok = await add.run(() => call('currency.setRate', { from, to: to ?? baseCurrency, rate: exact, ...(day !== null ? { date: day } : {}) }));
    if (ok) rate.reset();
  };
  return (
    <Stack>
      <section className="pp-card" aria-labelledby="set-base">
        <Title order={2} size="h5" id="set-base" mb="xs">
          {t('settings.baseCurrency')}
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          {t('settings.baseCurrencyHint')}
        </Text>
        {base.data ? (
          <Select
            aria-labelledby="set-base"
            data={CURRENCIES}
            value={baseCurrency}
            searchable
            allowDeselect={false}
            w={200}
            onChange={(v) => v && void setBase.run(() => call('currency.setBase', { currency: v }))}
            error={setBase.error ? errorText(setBase.error) : null}
          />
        ) : (
          <Skeleton h={36} w={200} />
        )}
        {base.data && !base.data.explicit && (
          <Text size="xs" c="dimmed" mt={4}>
            {t('settings.baseDerived')}
          </Text>
        )}
      </section>
      <section className="pp-card" aria-labelledby="set-rates">
        <Title order={2} size="h5" id="set-rates" mb="xs">
          {t('settings.rates')}
        </Title>
        <form onSubmit={submit}>
          <Group align="flex-start" gap="xs" mb="sm">
            <Select label={t('settings.rateFrom')} data={CURRENCIES} value={from} onChange={setFrom} searchable allowDeselect={false} w={120} />
            <Select label={t('settings.rateTo')} data={CURRENCIES} value={to ?? baseCurrency} onChange={setTo} searchable allowDeselect={false} w={120} />
            <NumberField field={rate} label={t('settings.rate')} description={from ? t('settings.rateHint', { from, to: to ?? baseCurrency }) : undefined} required w={200} error={add.error ? errorText(add.error) : null} />
            <TextInput label={t('settings.rateDate')} type="date" value={date} onChange={(e) => setDate(e.currentTarget.value)} />
            <Button type="submit" mt={24} loading={add.busy} disabled={rate.text.trim() === ''}>
              {t('settings.addRate')}
            </Button>
          </Group>
        </form>
        <ErrorNote error={rates.error ?? remove.error} onRetry={rates.reload} />
        {rates.data && rates.data.list.length === 0 ? (
          <Empty>{t('settings.noRates')}</Empty>
        ) : (
          <Table aria-labelledby="set-rates">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('settings.pair')}</Table.Th>
                <Table.Th ta="right">{t('settings.rate')}</Table.Th>
                <Table.Th>{t('settings.rateDate')}</Table.Th>
                <Table.Th w={40}>
                  <span className="pp-visually-hidden">{t('assets.actions')}</span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rates.data?.list.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td>
                    1 {r.from} → {r.to}
                  </Table.Td>
                  <Table.Td ta="right" className="pp-num">
                    {String(r.rate)}
                  </Table.Td>
                  <Table.Td>{f.date(r.date)}</Table.Td>
                  <Table.Td>
                    <ActionIcon variant="subtle" color="red" aria-label={t('settings.deleteRate', { from: r.from, to: r.to })} onClick={() => void remove.run(() => call('currency.deleteRate', { id: r.id }))}>
                      <Icon name="trash" size={16} />
                    </ActionIcon>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </section>
    </Stack>
  );
}

/* ------------------------------------------------------------------ categories */

function Categories() {
  const { t } = useTranslation();
  const categories = useCategories();
  return (
    <div className="pp-grid pp-grid-2">
      {(['expense', 'income'] as const).map((type) => (
        <CategoryList key={type} type={type} list={type === 'expense' ? categories.expense : categories.income} loading={!categories.data} title={t(`settings.categories.${type}`)} />
      ))}
    </div>
  );
}

function CategoryList({ type, list, loading, title }: { type: 'income' | 'expense'; list: Category[]; loading: boolean; title: string }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const [name, setName] = useState('');
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null);
  const [deleting, setDeleting] = useState<Category | null>(null);
  const [moveTo, setMoveTo] = useState<string | null>(null);
  const add = useAction();
  const rename = useAction();
  const remove = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const ok = await add.run(() => call('category.create', { type, name: name.trim() }));
    if (ok) setName('');
  };
  return (
    <section className="pp-card" aria-label={title}>
      <Title order={2} size="h5" mb="sm">
        {title}
      </Title>
      <form onSubmit={submit}>
        <Group align="flex-start" gap="xs" mb="sm">
          <TextInput aria-label={t('settings.newCategory', { type: title })} placeholder={t('settings.newCategoryPlaceholder')} value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={64} style={{ flex: 1 }} error={add.error ? errorText(add.error) : null} />
          <Button type="submit" loading={add.busy} disabled={!name.trim()}>
            {t('settings.add')}
          </Button>
        </Group>
      </form>
      {loading ? (
        <Skeleton h={200} />
      ) : (
        <Stack gap={2}>
          {list.map((c) =>
            renaming?.id === c.id ? (
              <form
                key={c.id}
                onSubmit={async (e) => {
                  e.preventDefault();
                  const ok = await rename.run(() => call('category.update', { id: c.id, name: renaming.name.trim() }));
                  if (ok) setRenaming(null);
                }}
              >
                <Group gap="xs">
                  <TextInput size="xs" aria-label={t('settings.renameCategory', { name: c.name })} value={renaming.name} onChange={(e) => setRenaming({ id: c.id, name: e.currentTarget.value })} autoFocus style={{ flex: 1 }} error={rename.error ? errorText(rename.error) : null} />
                  <Button size="xs" type="submit" loading={rename.busy}>
                    {t('common.save')}
                  </Button>
                  <Button size="xs" variant="default" onClick={() => setRenaming(null)}>
                    {t('common.cancel')}
                  </Button>
                </Group>
              </form>
            ) : (
              <Group key={c.id} justify="space-between" py={2}>
                <Text size="sm">{c.name}</Text>
                <Group gap={2}>
                  <ActionIcon variant="subtle" aria-label={t('settings.renameCategory', { name: c.name })} onClick={() => (rename.setError(null), setRenaming({ id: c.id, name: c.name }))}>
                    <Icon name="edit" size={16} />
                  </ActionIcon>
                  <ActionIcon variant="subtle" color="red" aria-label={t('settings.deleteCategory', { name: c.name })} onClick={() => (remove.setError(null), setMoveTo(null), setDeleting(c))}>
                    <Icon name="trash" size={16} />
                  </ActionIcon>
                </Group>
              </Group>
            ),
          )}
        </Stack>
      )}
      <Modal opened={deleting !== null} onClose={() => setDeleting(null)} title={t('settings.deleteCategoryTitle', { name: deleting?.name ?? '' })}>
        <Stack gap="sm">
          <Text size="sm">{t('settings.deleteCategoryText')}</Text>
          <Select label={t('settings.moveTo')} clearable placeholder={t('settings.moveToNone')} data={list.filter((c) => c.id !== deleting?.id).map((c) => ({ value: c.id, label: c.name }))} value={moveTo} onChange={setMoveTo} />
          {remove.error && (
            <Text size="sm" c="red" role="alert">
              {remove.error.code === 409 ? t('settings.categoryInUse') : errorText(remove.error)}
            </Text>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeleting(null)}>
              {t('common.cancel')}
            </Button>
            <Button
              color="red"
              loading={remove.busy}
              onClick={async () => {
                if (!deleting) return;
                const ok = await remove.run(() => call('category.delete', { id: deleting.id, ...(moveTo ? { moveTo } : {}) }));
                if (ok) {
                  setDeleting(null);
                  notifications.show({ color: 'teal', message: t('settings.categoryDeleted', { count: ok.movedRecords }) });
                }
              }}
            >
              {t('assets.delete')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </section>
  );
}

/* ------------------------------------------------------------------ import / export */

function download(name: string, content: string, type: string) {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Splits a CSV at row boundaries into parts under the API's 1 MiB body limit, each with the header. */
export function splitCsv(text: string, maxChars = 700_000): { csv: string; firstLine: number }[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const header = lines[0] ?? '';
  const parts: { csv: string; firstLine: number }[] = [];
  let current: string[] = [];
  let size = header.length;
  let firstLine = 2;
  let inQuotes = false;
  let rowStart = true;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    // a quoted field may span lines: only cut where no quote is open
    if (rowStart && size + line.length + 1 > maxChars && current.length > 0 && !inQuotes) {
      parts.push({ csv: [header, ...current].join('\n'), firstLine });
      firstLine = i + 1;
      current = [];
      size = header.length;
    }
    current.push(line);
    size += line.length + 1;
    for (const ch of line) if (ch === '"') inQuotes = !inQuotes;
    rowStart = !inQuotes;
  }
  if (current.some((l) => l.trim() !== '')) parts.push({ csv: [header, ...current].join('\n'), firstLine });
  return parts;
}

type ImportResult = ResultOf<'accounting.importCsv'>;
interface Preview {
  rows: number;
  create: number;
  duplicate: number;
  invalid: number;
  newCategories: string[];
  invalidLines: { line: number; errors: string[] }[];
}

/** `withJsonRestore`: members restore a JSON backup here (the owner and admins do it under Backups). */
function ImportExport({ withJsonRestore }: { withJsonRestore: boolean }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const exporting = useAction();
  const backingUp = useAction();
  const fileInput = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<{ name: string; parts: { csv: string; firstLine: number }[] } | null>(null);
  const [createCategories, setCreateCategories] = useState(false);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [progress, setProgress] = useState<{ done: number; total: number; phase: 'check' | 'import' } | null>(null);
  const [error, setError] = useState<ApiCallError | null>(null);
  const [result, setResult] = useState<{ created: number; duplicate: number; invalid: number } | null>(null);

  const exportCsv = async () => {
    const start = fromDateInput(from);
    const endDay = fromDateInput(to);
    const answer = await exporting.run(() => call('accounting.exportCsv', { ...(start !== null ? { startDate: start } : {}), ...(endDay !== null ? { endDate: endDay + 86_400_000 } : {}) }), { invalidate: false });
    if (answer) {
      download(answer.filename, answer.csv, 'text/csv;charset=utf-8');
      notifications.show({ color: 'teal', message: t('settings.exported', { count: answer.count }) });
    }
  };
  const backup = async () => {
    const answer = await backingUp.run(() => call('ledger.backup', {}), { invalidate: false });
    if (answer) download(`pennypost-backup-${toDateInput(Date.now())}.json`, JSON.stringify(answer), 'application/json');
  };

  const run = async (dryRun: boolean, parts: { csv: string; firstLine: number }[]) => {
    setError(null);
    setProgress({ done: 0, total: parts.length, phase: dryRun ? 'check' : 'import' });
    const sum: Preview = { rows: 0, create: 0, duplicate: 0, invalid: 0, newCategories: [], invalidLines: [] };
    try {
      for (const [index, part] of parts.entries()) {
        const answer: ImportResult = await call('accounting.importCsv', { csv: part.csv, dryRun, timeZone, createMissingCategories: createCategories });
        sum.rows += answer.summary.rows;
        sum.create += answer.summary.create;
        sum.duplicate += answer.summary.duplicate;
        sum.invalid += answer.summary.invalid;
        for (const c of answer.summary.newCategories ?? []) if (!sum.newCategories.includes(c.name)) sum.newCategories.push(c.name);
        // lines are counted per part (the header is line 1): map them back to the file's lines
        for (const bad of answer.invalid) if (sum.invalidLines.length < 100) sum.invalidLines.push({ line: part.firstLine + bad.line - 2, errors: bad.errors });
        setProgress({ done: index + 1, total: parts.length, phase: dryRun ? 'check' : 'import' });
      }
      return sum;
    } catch (err) {
      setError(err instanceof ApiCallError ? err : new ApiCallError(500, String(err)));
      return null;
    } finally {
      setProgress(null);
    }
  };
  const choose = async (chosen: File | undefined) => {
    if (!chosen) return;
    setPreview(null);
    setResult(null);
    const text = await chosen.text();
    const parts = splitCsv(text);
    setFile({ name: chosen.name, parts });
    const summary = await run(true, parts);
    if (summary) setPreview(summary);
    if (fileInput.current) fileInput.current.value = '';
  };
  const confirm = async () => {
    if (!file) return;
    const summary = await run(false, file.parts);
    if (summary) {
      setResult({ created: summary.create, duplicate: summary.duplicate, invalid: summary.invalid });
      setPreview(null);
      setFile(null);
      invalidate();
    }
  };

  return (
    <Stack>
      <section className="pp-card" aria-labelledby="set-export">
        <Title order={2} size="h5" id="set-export" mb="xs">
          {t('settings.export')}
        </Title>
        <Group align="flex-end" gap="xs">
          <TextInput type="date" label={t('records.from')} value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
          <TextInput type="date" label={t('records.to')} value={to} onChange={(e) => setTo(e.currentTarget.value)} />
          <Button onClick={() => void exportCsv()} loading={exporting.busy}>
            {t('settings.exportCsv')}
          </Button>
          <Button variant="default" onClick={() => void backup()} loading={backingUp.busy}>
            {t('settings.backupJson')}
          </Button>
        </Group>
        <ErrorNote error={exporting.error ?? backingUp.error} />
      </section>
      <section className="pp-card" aria-labelledby="set-import">
        <Title order={2} size="h5" id="set-import" mb="xs">
          {t('settings.import')}
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          {t('settings.importHint')}
        </Text>
        <input ref={fileInput} type="file" accept=".csv,text/csv" className="pp-visually-hidden" tabIndex={-1} aria-hidden="true" onChange={(e) => void choose(e.currentTarget.files?.[0])} data-testid="import-input" />
        <Group gap="sm">
          <Button onClick={() => fileInput.current?.click()} disabled={progress !== null}>
            {t('settings.chooseCsv')}
          </Button>
          <Checkbox label={t('settings.createCategories')} checked={createCategories} onChange={(e) => setCreateCategories(e.currentTarget.checked)} />
        </Group>
        {progress && (
          <div style={{ marginTop: 12 }}>
            <Text size="sm" mb={4}>
              {progress.phase === 'check' ? t('settings.checking', { done: progress.done, total: progress.total }) : t('settings.importing', { done: progress.done, total: progress.total })}
            </Text>
            <Progress value={(progress.done / Math.max(1, progress.total)) * 100} aria-label={t('settings.importProgress')} animated />
          </div>
        )}
        {error && (
          <Alert color="red" role="alert" mt="sm">
            {errorText(error)}
          </Alert>
        )}
        {preview && file && (
          <div style={{ marginTop: 12 }} data-testid="import-preview">
            <Title order={3} size="h6" mb={4}>
              {t('settings.previewOf', { name: file.name })}
            </Title>
            <Text size="sm">{t('settings.previewSummary', { rows: preview.rows, create: preview.create, duplicate: preview.duplicate, invalid: preview.invalid })}</Text>
            {preview.newCategories.length > 0 && (
              <Text size="sm" c="dimmed">
                {t('settings.newCategories', { names: preview.newCategories.join(', ') })}
              </Text>
            )}
            {preview.invalidLines.length > 0 && (
              <Table mt="xs" aria-label={t('settings.invalidRows')}>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th w={80}>{t('settings.line')}</Table.Th>
                    <Table.Th>{t('settings.problem')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {preview.invalidLines.map((l) => (
                    <Table.Tr key={l.line}>
                      <Table.Td>{l.line}</Table.Td>
                      <Table.Td>{l.errors.join('; ')}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
            <Group mt="sm">
              <Button onClick={() => void confirm()} disabled={preview.create === 0}>
                {t('settings.importN', { count: preview.create })}
              </Button>
              <Button variant="default" onClick={() => (setPreview(null), setFile(null))}>
                {t('common.cancel')}
              </Button>
            </Group>
          </div>
        )}
        {result && (
          <Alert color="teal" mt="sm" role="status">
            {t('settings.imported', result)}
          </Alert>
        )}
      </section>
      {withJsonRestore && <JsonRestore />}
    </Stack>
  );
}

/* ------------------------------------------------------------------ server */

function Server({ manager }: { manager: boolean }) {
  return (
    <Stack>
      {manager && <NetworkSettings />}
      <SyncSettings />
      <About />
    </Stack>
  );
}

function NetworkSettings() {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const settings = useApi('settings.get', {});
  const save = useAction();
  const [publicBaseUrl, setPublicBaseUrl] = useState<string | null>(null);
  const [hosts, setHosts] = useState<string[] | null>(null);
  const s = settings.data;
  const update = (network: { lan?: boolean; lanApi?: boolean; publicBaseUrl?: string; allowedHosts?: string[] }) => save.run(() => call('settings.update', { network }));
  return (
    <section className="pp-card" aria-labelledby="set-network">
      <Title order={2} size="h5" id="set-network" mb="xs">
        {t('settings.network')}
      </Title>
      <ErrorNote error={settings.error} onRetry={settings.reload} />
      {!s ? (
        <Skeleton h={160} />
      ) : (
        <Stack gap="sm">
          <Text size="sm">
            {t('settings.serverAddress')} <Code>{s.listening?.url ?? location.origin}</Code>
          </Text>
          <Switch
            label={t('settings.lan')}
            description={s.network.lan && s.lanAddresses.length ? t('settings.lanOn', { addresses: s.lanAddresses.map((a) => `http://${a}:${s.listening?.port ?? ''}`).join(', ') }) : t('settings.lanHint')}
            checked={s.network.lan}
            disabled={save.busy}
            onChange={(e) => void update({ lan: e.currentTarget.checked })}
          />
          <Switch label={t('settings.lanApi')} description={t('settings.lanApiHint')} checked={s.network.lanApi} disabled={save.busy || !s.network.lan} onChange={(e) => void update({ lanApi: e.currentTarget.checked })} />
          {s.restartRequired && (
            <Alert color="yellow" role="status">
              {t('settings.restartRequired')}
            </Alert>
          )}
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (publicBaseUrl !== null) void update({ publicBaseUrl: publicBaseUrl.trim().replace(/\/+$/, '') }).then((ok) => ok && setPublicBaseUrl(null));
            }}
          >
            <Group align="flex-start" gap="xs">
              <TextInput
                label={t('settings.publicBaseUrl')}
                description={t('settings.publicBaseUrlHint')}
                placeholder="https://pennypost.example.net"
                value={publicBaseUrl ?? s.network.publicBaseUrl}
                onChange={(e) => setPublicBaseUrl(e.currentTarget.value)}
                style={{ flex: 1 }}
                error={save.error ? errorText(save.error) : null}
              />
              <Button type="submit" mt={44} disabled={publicBaseUrl === null} loading={save.busy}>
                {t('common.save')}
              </Button>
            </Group>
          </form>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (hosts !== null) void update({ allowedHosts: hosts }).then((ok) => ok && setHosts(null));
            }}
          >
            <Group align="flex-end" gap="xs">
              <TagsInput label={t('settings.allowedHosts')} description={t('settings.allowedHostsHint')} value={hosts ?? s.network.allowedHosts} onChange={setHosts} style={{ flex: 1 }} splitChars={[',', ' ']} />
              <Button type="submit" disabled={hosts === null} loading={save.busy}>
                {t('common.save')}
              </Button>
            </Group>
          </form>
          <Text size="xs" c="dimmed">
            {t('settings.dataDir')} <Code>{s.dataDir}</Code>
          </Text>
        </Stack>
      )}
    </section>
  );
}

const SYNC_STATE_COLORS: Record<string, string> = { idle: 'teal', active: 'blue', paused: 'yellow', error: 'red', stopped: 'gray' };

function SyncSettings() {
  const { t } = useTranslation();
  const f = useFormat();
  const errorText = useErrorText();
  const [poll, setPoll] = useState(0);
  const status = useApi('sync.status', {});
  const [url, setUrl] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [live, setLive] = useState(true);
  const action = useAction();
  // Live status: refresh every 3 s while this section is open.
  useEffect(() => {
    const timer = window.setInterval(() => setPoll((n) => n + 1), 3000);
    return () => window.clearInterval(timer);
  }, []);
  useEffect(() => {
    if (poll) status.reload();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [poll]);
  const s = status.data;
  const configured = s && 'configured' in s && s.configured;
  const connect = async (event: FormEvent) => {
    event.preventDefault();
    const ok = await action.run(() => call('sync.configure', { url: url.trim(), username: username.trim(), password, live }));
    if (ok) setPassword('');
  };
  return (
    <section className="pp-card" aria-labelledby="set-sync">
      <Title order={2} size="h5" id="set-sync" mb="xs">
        {t('settings.sync')}
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        {t('settings.syncHint')}
      </Text>
      {status.error && status.data === undefined && <ErrorNote error={status.error} onRetry={status.reload} />}
      {!s ? (
        <Skeleton h={120} />
      ) : !configured ? (
        <form onSubmit={connect} aria-label={t('settings.syncConnect')}>
          <Group align="flex-start" gap="xs">
            <TextInput label={t('settings.syncUrl')} placeholder="https://couch.example.com/" value={url} onChange={(e) => setUrl(e.currentTarget.value)} required style={{ flex: 2 }} />
            <TextInput label={t('settings.syncUser')} value={username} onChange={(e) => setUsername(e.currentTarget.value)} required style={{ flex: 1 }} autoComplete="off" />
            <PasswordInput label={t('auth.password')} value={password} onChange={(e) => setPassword(e.currentTarget.value)} required style={{ flex: 1 }} autoComplete="new-password" />
          </Group>
          <Group justify="space-between" mt="sm">
            <Switch label={t('settings.syncLive')} checked={live} onChange={(e) => setLive(e.currentTarget.checked)} />
            <Button type="submit" loading={action.busy} disabled={!url.trim() || !username.trim() || !password}>
              {t('settings.syncConnectButton')}
            </Button>
          </Group>
          {action.error && (
            <Alert color="red" role="alert" mt="sm">
              {errorText(action.error)}
            </Alert>
          )}
        </form>
      ) : (
        'collections' in s && (
          <Stack gap="sm">
            <Group justify="space-between">
              <Text size="sm">
                {t('settings.syncWith', { url: s.url, user: s.username })} · {s.enabled ? t('settings.syncOn') : t('settings.syncOff')}
              </Text>
              <Group gap="xs">
                {s.enabled ? (
                  <Button size="xs" variant="default" onClick={() => void action.run(() => call('sync.stop', {}))}>
                    {t('settings.syncPause')}
                  </Button>
                ) : (
                  <Button size="xs" onClick={() => void action.run(() => call('sync.start', {}))}>
                    {t('settings.syncStart')}
                  </Button>
                )}
                <Button size="xs" variant="default" onClick={() => void action.run(() => call('sync.resync', {}))}>
                  {t('settings.syncResync')}
                </Button>
                <Button size="xs" color="red" variant="subtle" onClick={() => void action.run(() => call('sync.remove', {}))}>
                  {t('settings.syncRemove')}
                </Button>
              </Group>
            </Group>
            <ErrorNote error={action.error} />
            <Table aria-label={t('settings.syncStatus')}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('settings.syncCollection')}</Table.Th>
                  <Table.Th>{t('push.status')}</Table.Th>
                  <Table.Th>{t('settings.syncLastPush')}</Table.Th>
                  <Table.Th>{t('settings.syncLastPull')}</Table.Th>
                  <Table.Th ta="right">{t('settings.syncPending')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {s.collections.map((c) => (
                  <Table.Tr key={c.collection}>
                    <Table.Td>{c.collection}</Table.Td>
                    <Table.Td>
                      <Badge variant="light" color={SYNC_STATE_COLORS[c.state] ?? 'gray'}>
                        {t(`settings.syncStates.${c.state as 'idle'}`)}
                      </Badge>
                      {c.lastError && (
                        <Text size="xs" c="red">
                          {c.lastError}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>{c.lastPushedAt ? f.date(c.lastPushedAt, 'datetime') : '—'}</Table.Td>
                    <Table.Td>{c.lastPulledAt ? f.date(c.lastPulledAt, 'datetime') : '—'}</Table.Td>
                    <Table.Td ta="right">{c.pending ?? 0}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Stack>
        )
      )}
      {s && <SyncConflicts />}
    </section>
  );
}

const CONFLICT_PAGE_SIZE = 20;

/** A field value as the conflict log shows it (text in quotes, long values cut). */
function conflictValue(value: unknown): string {
  if (value === undefined || value === null || value === '') return '—';
  const text = typeof value === 'string' ? `"${value}"` : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** Settings → Sync → Conflicts: what the conflict rules overwrote, with "Keep the other version". */
function SyncConflicts() {
  const { t } = useTranslation();
  const f = useFormat();
  const [page, setPage] = useState(1);
  const log = useApi('sync.conflicts', { page, pageSize: CONFLICT_PAGE_SIZE });
  const action = useAction();
  const data = log.data;
  const keep = async (conflictId: string) => {
    const ok = await action.run(() => call('sync.keepOtherVersion', { conflictId }));
    if (ok) notifications.show({ color: 'teal', message: t('settings.syncConflicts.kept') });
  };
  return (
    <Stack gap="xs" mt="md" aria-labelledby="set-sync-conflicts">
      <Title order={3} size="h6" id="set-sync-conflicts">
        {t('settings.syncConflicts.title')}
      </Title>
      <Text size="xs" c="dimmed">
        {t('settings.syncConflicts.hint')}
      </Text>
      <ErrorNote error={log.error ?? action.error} />
      {data && data.list.length === 0 && <Empty>{t('settings.syncConflicts.empty')}</Empty>}
      {data && data.list.length > 0 && (
        <Stack gap="xs" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label={t('settings.syncConflicts.title')}>
          {data.list.map((c) => (
            <li key={c.id} data-testid="sync-conflict">
              <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm">
                <Stack gap={2} style={{ minWidth: 0 }}>
                  <Group gap="xs">
                    <Text size="sm" fw={500}>
                      {t(`settings.syncConflicts.kinds.${c.kind as 'fields'}`)}
                    </Text>
                    <Badge size="xs" variant="light" color={c.status === 'open' ? 'yellow' : 'gray'}>
                      {t(`settings.syncConflicts.statuses.${c.status as 'open'}`)}
                    </Badge>
                  </Group>
                  <Text size="xs" c="dimmed">
                    {t('settings.syncConflicts.document', { collection: c.collection, id: c.documentId })} · {f.date(c.at, 'datetime')} ·{' '}
                    {t(`settings.syncConflicts.lost.${c.lost as 'this-device'}`)}
                  </Text>
                  {c.fields.map((field) => (
                    <Text size="xs" key={field.field} style={{ overflowWrap: 'anywhere' }}>
                      {c.kind === 'fields'
                        ? t('settings.syncConflicts.field', { field: field.field, lost: conflictValue(field.lost), kept: conflictValue(field.kept) })
                        : t('settings.syncConflicts.fieldLost', { field: field.field, lost: conflictValue(field.lost) })}
                    </Text>
                  ))}
                </Stack>
                {c.status === 'open' && (
                  <Group gap="xs" wrap="nowrap">
                    <Button size="xs" variant="default" loading={action.busy} onClick={() => void keep(c.id)}>
                      {t('settings.syncConflicts.keep')}
                    </Button>
                    <Button size="xs" variant="subtle" color="gray" disabled={action.busy} onClick={() => void action.run(() => call('sync.dismissConflict', { conflictId: c.id }))}>
                      {t('settings.syncConflicts.dismiss')}
                    </Button>
                  </Group>
                )}
              </Group>
            </li>
          ))}
        </Stack>
      )}
      {data && data.total > data.pageSize && (
        <Group justify="flex-end">
          <Pagination total={Math.ceil(data.total / data.pageSize)} value={page} onChange={setPage} size="sm" getControlProps={(c) => ({ 'aria-label': t(`common.page.${c}`) })} />
        </Group>
      )}
    </Stack>
  );
}

function About() {
  const { t } = useTranslation();
  const info = useApi('app.info', {}, { live: false });
  return (
    <section className="pp-card" aria-labelledby="set-about">
      <Title order={2} size="h5" id="set-about" mb="xs">
        {t('settings.about')}
      </Title>
      <ErrorNote error={info.error} />
      {info.data && (
        <Stack gap={2}>
          <Text size="sm">
            {info.data.name} {info.data.version} · {t(`settings.modes.${info.data.mode as 'desktop'}`)} · {info.data.platform}/{info.data.arch}
          </Text>
          <Text size="xs" c="dimmed">
            Node {info.data.versions.node}
            {info.data.versions.electron ? ` · Electron ${info.data.versions.electron} · Chrome ${info.data.versions.chrome}` : ''}
          </Text>
          <Text size="xs" c="dimmed">
            {t('settings.licences', { count: info.data.licences.total })}
          </Text>
        </Stack>
      )}
    </section>
  );
}
