import { useState } from 'react';
import { Button, Group, Stack } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { ErrorNote } from '../../components/common';
import { useAction } from '../../lib/data';
import { fromDateInput, toDateInput } from '../../lib/format';
import { download } from '../../lib/download';
import { JsonRestore } from './JsonRestore';
import { StatementImport } from './import/StatementImport';
import { DateField } from '../../components/DateField';
import { Card } from '../../components/Card';

/**
 * Settings → Import & export: the one Import (statements of banks and payment apps, and PennyPost's
 * own CSV: import/StatementImport.tsx, also behind Import on the Records screen), the export, and
 * for members the JSON restore. `withJsonRestore`: members restore a JSON backup here (the owner and
 * admins do it under Backups).
 */
export function ImportExportTab({ withJsonRestore }: { withJsonRestore: boolean }) {
  const { t } = useTranslation();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const exporting = useAction();
  const backingUp = useAction();
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

  return (
    <Stack>
      <StatementImport />
      <Card id="set-export" title={t('settings.export')}>
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
      </Card>
      {withJsonRestore && <JsonRestore />}
    </Stack>
  );
}
