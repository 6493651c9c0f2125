import { useState } from 'react';
import { Alert, Button } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { ApiCallError, call } from '../../api/client';
import { ErrorNote } from '../../components/common';
import { invalidate } from '../../lib/data';
import { Card } from '../../components/Card';
import { HiddenFileInput, useFileChoice } from '../../components/FileChoice';

/** The request limit is 1 MiB: records go in parts of at most this many characters of JSON. */
const PART_CHARS = 700_000;

/** Restore a JSON backup file into the signed-in account (per account: members have it under Import & export). */
export function JsonRestore() {
  const { t } = useTranslation();
  const input = useFileChoice();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const choose = async (file: File | undefined) => {
    if (!file) return;
    setError(null);
    setBusy(true);
    try {
      // Any file can be chosen: its JSON may be anything.
      let parsed: unknown;
      try {
        parsed = JSON.parse(await file.text());
      } catch {
        throw new ApiCallError(400, t('backups.jsonBad'));
      }
      if (typeof parsed !== 'object' || parsed === null || (parsed as { format?: unknown }).format !== 'pennypost-ledger-backup') throw new ApiCallError(400, t('backups.jsonBad'));
      const backup = parsed as Record<string, unknown> & { records?: unknown[] };
      const records = Array.isArray(backup.records) ? backup.records : [];
      const parts: unknown[][] = [];
      let part: unknown[] = [];
      let size = 0;
      for (const record of records) {
        const chars = JSON.stringify(record).length + 1;
        if (part.length > 0 && size + chars > PART_CHARS) {
          parts.push(part);
          part = [];
          size = 0;
        }
        part.push(record);
        size += chars;
      }
      parts.push(part);
      const total = { assets: 0, records: 0 };
      for (const [index, chunk] of parts.entries()) {
        const payload = index === 0 ? { ...backup, records: chunk } : { format: backup.format, version: backup.version, records: chunk };
        const answer = await call('ledger.restore', { backup: payload as never, append: index > 0 });
        total.assets += answer.restored.assets;
        total.records += answer.restored.records;
      }
      invalidate();
      notifications.show({ color: 'teal', message: t('backups.jsonRestored', total) });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
      input.clear();
    }
  };

  return (
    <Card id="set-json-restore" title={t('backups.jsonTitle')} hint={t('backups.jsonHint')}>
      <HiddenFileInput choice={input} accept=".json,application/json" testId="json-restore-input" onFiles={(files) => void choose(files[0])} />
      <Button variant="default" onClick={() => input.open()} loading={busy}>
        {t('backups.jsonChoose')}
      </Button>
      {error instanceof ApiCallError && error.code === 400 && error.message === t('backups.jsonBad') ? (
        <Alert color="red" role="alert" mt="sm">
          {error.message}
        </Alert>
      ) : (
        <ErrorNote error={error} />
      )}
    </Card>
  );
}
