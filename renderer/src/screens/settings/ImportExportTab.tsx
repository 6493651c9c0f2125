import { useRef, useState } from 'react';
import { Alert, Button, Checkbox, Group, Progress, Stack, Table, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { ApiCallError, call, type ResultOf } from '../../api/client';
import { ErrorNote } from '../../components/common';
import { invalidate, useAction } from '../../lib/data';
import { useErrorText, useImportProblemText } from '../../lib/errors';
import { fromDateInput, timeZone, toDateInput } from '../../lib/format';
import { download } from '../../lib/download';
import { JsonRestore } from './JsonRestore';
import { StatementImport } from './import/StatementImport';
import { splitCsv } from './split-csv';
import { DateField } from '../../components/DateField';

type ImportResult = ResultOf<'accounting.importCsv'>;

interface Preview {
  rows: number;
  create: number;
  duplicate: number;
  invalid: number;
  newCategories: string[];
  invalidLines: { line: number; problems: ImportResult['invalid'][number]['problems'] }[];
}

/** `withJsonRestore`: members restore a JSON backup here (the owner and admins do it under Backups). */
export function ImportExportTab({ withJsonRestore }: { withJsonRestore: boolean }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const problemText = useImportProblemText();
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
    const answer = await exporting.run(
      () =>
        call('accounting.exportCsv', {
          ...(start !== null ? { startDate: start } : {}),
          ...(endDay !== null ? { endDate: endDay + 86_400_000 } : {}),
          // Named with today's date where the viewer is, like the JSON backup beside it.
          timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
        }),
      { invalidate: false },
    );
    if (answer) {
      download(answer.filename, answer.csv, 'text/csv;charset=utf-8');
      notifications.show({ color: 'teal', message: t('settings.exported', { count: answer.count }) });
    }
  };
  const backup = async () => {
    const answer = await backingUp.run(() => call('ledger.backup', {}), { invalidate: false });
    if (answer) download(`pennypost-backup-${toDateInput(Date.now())}.json`, JSON.stringify(answer), 'application/json');
  };

  const run = async (dryRun: boolean, parts: { csv: string; firstLine: number }[], createMissing = createCategories) => {
    setError(null);
    setProgress({ done: 0, total: parts.length, phase: dryRun ? 'check' : 'import' });
    const sum: Preview = { rows: 0, create: 0, duplicate: 0, invalid: 0, newCategories: [], invalidLines: [] };
    try {
      for (const [index, part] of parts.entries()) {
        const answer: ImportResult = await call('accounting.importCsv', { csv: part.csv, dryRun, timeZone, createMissingCategories: createMissing });
        sum.rows += answer.summary.rows;
        sum.create += answer.summary.create;
        sum.duplicate += answer.summary.duplicate;
        sum.invalid += answer.summary.invalid;
        for (const c of answer.summary.newCategories) if (!sum.newCategories.includes(c.name)) sum.newCategories.push(c.name);
        // lines are counted per part (the header is line 1): map them back to the file's lines
        for (const bad of answer.invalid) if (sum.invalidLines.length < 100) sum.invalidLines.push({ line: part.firstLine + bad.line - 2, problems: bad.problems });
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
  /** The human choice instead of an API option: create the categories the file names, and preview again. */
  const recheckCreatingCategories = async () => {
    if (!file) return;
    setCreateCategories(true);
    const summary = await run(true, file.parts, true);
    if (summary) setPreview(summary);
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
      <StatementImport />
      <section className="pp-card" aria-labelledby="set-export">
        <Title order={2} size="h5" id="set-export" mb="xs">
          {t('settings.export')}
        </Title>
        <Group align="flex-end" gap="xs">
          <DateField w={160} clearable label={t('records.from')} value={from} onChange={setFrom} />
          <DateField w={160} clearable label={t('records.to')} value={to} onChange={setTo} />
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
        <input
          ref={fileInput}
          type="file"
          accept=".csv,text/csv"
          className="pp-visually-hidden"
          tabIndex={-1}
          aria-hidden="true"
          onChange={(e) => void choose(e.currentTarget.files?.[0])}
          data-testid="import-input"
        />
        <Group gap="sm">
          <Button onClick={() => fileInput.current?.click()} disabled={progress !== null}>
            {t('settings.chooseCsv')}
          </Button>
          <Checkbox label={t('settings.createCategories')} checked={createCategories} onChange={(e) => setCreateCategories(e.currentTarget.checked)} />
        </Group>
        {progress && (
          <div style={{ marginTop: 12 }}>
            <Text size="sm" mb={4}>
              {progress.phase === 'check'
                ? t('settings.checking', { done: progress.done, total: progress.total })
                : t('settings.importing', { done: progress.done, total: progress.total })}
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
                      <Table.Td>{l.problems.map(problemText).join(' ')}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
            {preview.create === 0 && (
              <Alert color="gray" mt="sm" role="status" data-testid="nothing-to-import">
                {t('settings.nothingNew')}
              </Alert>
            )}
            {!createCategories && preview.invalidLines.some((l) => l.problems.some((p) => p.kind === 'unknownCategory')) && (
              <Button variant="light" mt="xs" onClick={() => void recheckCreatingCategories()}>
                {t('errors.importFix.createCategories')}
              </Button>
            )}
            <Group mt="sm">
              {preview.create > 0 && <Button onClick={() => void confirm()}>{t('settings.importN', { count: preview.create })}</Button>}
              <Button
                variant="default"
                onClick={() => {
                  setPreview(null);
                  setFile(null);
                }}
              >
                {preview.create === 0 ? t('common.close') : t('common.cancel')}
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
