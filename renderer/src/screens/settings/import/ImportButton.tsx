import { useState } from 'react';
import { Button, Modal } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Icon } from '../../../components/icons';
import { usePhone } from '../../../lib/use-phone';
import { StatementImport } from './StatementImport';

/**
 * Import on the Records screen (issue 36): the one Import (StatementImport: statements of banks and
 * payment apps, and PennyPost's own CSV) in a dialog, full screen on a phone, where the records it
 * writes appear behind it.
 */
export function ImportButton() {
  const { t } = useTranslation();
  const phone = usePhone();
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="default" leftSection={<Icon name="files" size={16} />} onClick={() => setOpen(true)} data-testid="records-import">
        {t('records.import')}
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={t('records.import')} size="xl" fullScreen={phone} closeButtonProps={{ 'aria-label': t('common.close') }}>
        <StatementImport />
      </Modal>
    </>
  );
}
