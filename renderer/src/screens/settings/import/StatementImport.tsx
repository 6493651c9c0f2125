import { useRef, useState, type DragEvent } from 'react';
import { Alert, Button, Group, Progress, Select, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call } from '../../../api/client';
import { ErrorNote } from '../../../components/common';
import { useAction } from '../../../lib/data';
import { timeZone } from '../../../lib/format';
import { useAssets } from '../../../lib/ledger';
import { Link } from '../../../lib/router';
import { CsvMappingStep, mappingComplete } from './CsvMappingStep';
import { ImportPreview } from './ImportPreview';
import { guessFormat, INLINE_LIMIT, PART_BYTES, partsOf, STATEMENT_FORMATS, timeZones, toBase64, type StatementFormat } from './statement-file';
import type { CommitResult, CsvDescription, CsvMapping, LineOverride, MappingDraft, PreviewResult, StatementSource } from './types';

interface ChosenFile {
  name: string;
  bytes: Uint8Array;
}

type Step = 'file' | 'mapping' | 'preview';

/**
 * Settings → Import & export: a bank or payment-app statement (Alipay, WeChat Pay, OFX/QFX, QIF,
 * CAMT.053 or any CSV) in three steps: the file, its format, the asset and the time zone; for a
 * generic CSV the columns; then the preview (what is created, what looks like a duplicate, what
 * was imported before, what is skipped and why) where lines can be left out or included, and the
 * import itself. Large files are sent ahead in parts (import.upload).
 */
export function StatementImport() {
  const { t } = useTranslation();
  const assets = useAssets();
  const fileInput = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const [file, setFile] = useState<ChosenFile | null>(null);
  const [format, setFormat] = useState<StatementFormat>('csv');
  const [assetId, setAssetId] = useState<string | null>(null);
  const [zone, setZone] = useState(timeZone);
  const [step, setStep] = useState<Step>('file');
  const [described, setDescribed] = useState<CsvDescription | null>(null);
  const [mapping, setMapping] = useState<MappingDraft | null>(null);
  const [preview, setPreview] = useState<PreviewResult | null>(null);
  const [sending, setSending] = useState<{ done: number; total: number } | null>(null);
  const [result, setResult] = useState<CommitResult | null>(null);
  const uploaded = useRef<string | null>(null);
  const action = useAction();
  const asset = (assetId ? assets.byId.get(assetId) : undefined) ?? assets.defaultAsset;

  const reset = () => {
    setFile(null);
    setStep('file');
    setDescribed(null);
    setMapping(null);
    setPreview(null);
    uploaded.current = null;
    action.setError(null);
  };

  const choose = async (chosen: File | undefined) => {
    if (!chosen) return;
    const bytes = new Uint8Array(await chosen.arrayBuffer());
    reset();
    setResult(null);
    setFile({ name: chosen.name, bytes });
    setFormat(guessFormat(chosen.name, bytes.subarray(0, 4096)));
    if (fileInput.current) fileInput.current.value = '';
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    void choose(event.dataTransfer.files[0]);
  };

  /** The file for the server: inline when small, else uploaded in parts once (the upload is kept for the next steps). */
  const source = async (bytes: Uint8Array): Promise<StatementSource> => {
    if (bytes.length <= INLINE_LIMIT) return { content: toBase64(bytes) };
    if (uploaded.current) return { uploadId: uploaded.current };
    const total = partsOf(bytes.length);
    let uploadId: string | undefined;
    try {
      for (let part = 0; part < total; part++) {
        setSending({ done: part, total });
        const content = toBase64(bytes.subarray(part * PART_BYTES, (part + 1) * PART_BYTES));
        uploadId = (await call('import.upload', { content, ...(uploadId ? { uploadId } : {}) })).uploadId;
      }
    } finally {
      setSending(null);
    }
    uploaded.current = uploadId ?? null;
    return { uploadId: uploadId ?? '' };
  };

  const runPreview = async (withMapping?: CsvMapping) => {
    if (!file || !asset) return;
    const answer = await action.run(
      async () => call('import.preview', { format, ...(await source(file.bytes)), assetId: asset.id, timeZone: zone, ...(withMapping ? { mapping: withMapping } : {}) }),
      { invalidate: false },
    );
    // A preview uses its upload up: going back and previewing again sends the file again.
    uploaded.current = null;
    if (answer) {
      setPreview(answer);
      setStep('preview');
    }
  };
  const next = async () => {
    if (!file || !asset) return;
    if (format !== 'csv') return runPreview();
    const answer = await action.run(async () => call('import.describeCsv', await source(file.bytes)), { invalidate: false });
    if (answer) {
      setDescribed(answer);
      setMapping(answer.saved ?? answer.guess);
      setStep('mapping');
    }
  };
  const commit = async (overrides: LineOverride[]) => {
    if (!preview) return;
    const answer = await action.run(() => call('import.commit', { token: preview.token, overrides }));
    if (answer) {
      notifications.show({ color: 'teal', message: t('imports.done', { count: answer.created }) });
      reset();
      setResult(answer);
    }
  };

  const formatOptions = STATEMENT_FORMATS.map((f) => ({ value: f, label: t(`imports.formats.${f}`) }));
  const assetOptions = assets.active.map((a) => ({ value: a.id, label: `${a.name} (${a.currency})` }));
  return (
    <section className="pp-card" aria-labelledby="set-statement" data-testid="statement-import">
      <Title order={2} size="h5" id="set-statement" mb="xs">
        {t('imports.title')}
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        {t('imports.hint')}
      </Text>
      <input
        ref={fileInput}
        type="file"
        accept=".csv,.ofx,.qfx,.qif,.xml,.xlsx,.txt,text/csv"
        className="pp-visually-hidden"
        tabIndex={-1}
        aria-hidden="true"
        onChange={(e) => void choose(e.currentTarget.files?.[0])}
        data-testid="statement-input"
      />
      {step === 'file' && (
        <Stack gap="sm">
          <div
            className="pp-dropzone"
            data-active={dragging}
            onDragOver={(e) => {
              e.preventDefault();
              setDragging(true);
            }}
            onDragLeave={() => setDragging(false)}
            onDrop={onDrop}
          >
            <Group justify="center" gap="sm">
              <Text size="sm">{file ? t('imports.chosen', { name: file.name, size: Math.max(1, Math.round(file.bytes.length / 1024)) }) : t('imports.drop')}</Text>
              <Button size="xs" variant={file ? 'default' : 'filled'} onClick={() => fileInput.current?.click()}>
                {file ? t('imports.otherFile') : t('imports.chooseFile')}
              </Button>
            </Group>
          </div>
          {assets.data && assets.active.length === 0 ? (
            <Alert color="yellow" role="status">
              {t('imports.noAssets')} <Link href="/assets">{t('imports.toAssets')}</Link>
            </Alert>
          ) : (
            <div className="pp-grid pp-grid-3" style={{ gap: 12 }}>
              <Select label={t('imports.format')} data={formatOptions} value={format} onChange={(v) => v && setFormat(v)} allowDeselect={false} />
              <Select label={t('imports.asset')} data={assetOptions} value={asset?.id ?? null} onChange={setAssetId} allowDeselect={false} searchable />
              <Select label={t('imports.timeZone')} data={timeZones(zone)} value={zone} onChange={(v) => v && setZone(v)} allowDeselect={false} searchable limit={50} />
            </div>
          )}
          <Group>
            <Button onClick={() => void next()} disabled={!file || !asset || sending !== null} loading={action.busy}>
              {format === 'csv' ? t('imports.toMapping') : t('imports.toPreview')}
            </Button>
          </Group>
        </Stack>
      )}
      {step === 'mapping' && described && mapping && (
        <CsvMappingStep
          described={described}
          mapping={mapping}
          onChange={setMapping}
          busy={action.busy}
          onBack={() => {
            action.setError(null);
            setStep('file');
          }}
          onNext={() => {
            if (mappingComplete(mapping)) void runPreview(mapping);
          }}
        />
      )}
      {step === 'preview' && preview && (
        <ImportPreview
          key={preview.token}
          preview={preview}
          fileName={file?.name ?? ''}
          assetId={asset?.id ?? ''}
          busy={action.busy}
          onCommit={(overrides) => void commit(overrides)}
          onBack={() => {
            action.setError(null);
            setPreview(null);
            setStep(format === 'csv' ? 'mapping' : 'file');
          }}
          onCancel={reset}
        />
      )}
      {sending && (
        <div style={{ marginTop: 12 }}>
          <Text size="sm" mb={4}>
            {t('imports.sending', { done: sending.done + 1, total: sending.total })}
          </Text>
          <Progress value={(sending.done / sending.total) * 100} aria-label={t('imports.sendingLabel')} animated />
        </div>
      )}
      <ErrorNote error={action.error} />
      {result && (
        <Alert color="teal" mt="sm" role="status" data-testid="statement-result" withCloseButton onClose={() => setResult(null)} closeButtonLabel={t('common.close')}>
          {t('imports.result', { created: result.created, alreadyImported: result.alreadyImported, leftOut: result.leftOut })}{' '}
          <Link href="/records">{t('imports.seeRecords')}</Link>
        </Alert>
      )}
    </section>
  );
}
