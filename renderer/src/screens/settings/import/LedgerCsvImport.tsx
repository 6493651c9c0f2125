import { useEffect, useState } from 'react';
import { Alert, Button, Checkbox, Group, Progress, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ApiCallError, call, type ResultOf } from '../../../api/client';
import { invalidate } from '../../../lib/data';
import { useErrorText, useImportProblemText } from '../../../lib/errors';
import { timeZone } from '../../../lib/format';
import { splitCsv } from '../split-csv';
import { HiddenFileInput, useFileChoice } from '../../../components/FileChoice';

type ImportResult = ResultOf<'accounting.importCsv'>;

interface Preview {
  rows: number;
  create: number;
  duplicate: number;
  invalid: number;
  newCategories: string[];
  invalidLines: { line: number; problems: ImportResult['invalid'][number]['problems'] }[];
}

/** The columns of PennyPost's own CSV (accounting.exportCsv), of which an import needs date, type, amount and asset. */
const OWN_COLUMNS = ['date', 'type', 'amount', 'asset'];

/** Whether a file's first line is the header of PennyPost's own CSV (its export, or a file written in its columns). */
export function isLedgerCsv(head: Uint8Array): boolean {
  const first =
    new TextDecoder('utf-8')
      .decode(head)
      .replace(/^\ufeff/, '')
      .split(/\r?\n/, 1)[0] ?? '';
  const cells = first.split(',').map((cell) => cell.trim().replace(/^"|"$/g, '').toLowerCase());
  return OWN_COLUMNS.every((column) => cells.includes(column));
}

/**
 * PennyPost's own CSV (accounting.importCsv: the columns of accounting.exportCsv): checked first
 * (rows, new, already imported, problems with the reason), then imported. Part of the one Import:
 * the statement wizard hands it a file it recognises (`file`), or the person chooses one here.
 */
export function LedgerCsvImport({ file: handed }: { file?: { name: string; bytes: Uint8Array } | null }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const problemText = useImportProblemText();
  const fileInput = useFileChoice();
  const [file, setFile] = useState<{ name: string; parts: { csv: string; firstLine: number }[] } | null>(null);
  const [createCategories, setCreateCategories] = useState(false);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [progress, setProgress] = useState<{ done: number; total: number; phase: 'check' | 'import' } | null>(null);
  const [error, setError] = useState<ApiCallError | null>(null);
  const [result, setResult] = useState<{ created: number; duplicate: number; invalid: number } | null>(null);

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
  const check = async (name: string, text: string) => {
    setPreview(null);
    setResult(null);
    const parts = splitCsv(text);
    setFile({ name, parts });
    const summary = await run(true, parts);
    if (summary) setPreview(summary);
  };
  const choose = async (chosen: File | undefined) => {
    if (!chosen) return;
    await check(chosen.name, await chosen.text());
    fileInput.clear();
  };
  // A file the wizard recognised as PennyPost's own CSV is checked at once.
  useEffect(() => {
    if (handed) void check(handed.name, new TextDecoder('utf-8').decode(handed.bytes).replace(/^\ufeff/, ''));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per file handed over: check only sets state, a new check per render would loop
  }, [handed]);
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
    <div className="pp-import-own" aria-labelledby="set-import" role="group">
      <Title order={3} size="h6" id="set-import" mb={4}>
        {t('settings.import')}
      </Title>
      <Text size="sm" c="dimmed" mb="xs">
        {t('settings.importHint')}
      </Text>
      <HiddenFileInput choice={fileInput} accept=".csv,text/csv" testId="import-input" onFiles={(files) => void choose(files[0])} />
      <Group gap="sm">
        <Button size="xs" variant="default" onClick={() => fileInput.open()} disabled={progress !== null}>
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
          <Title order={4} size="h6" mb={4}>
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
    </div>
  );
}
