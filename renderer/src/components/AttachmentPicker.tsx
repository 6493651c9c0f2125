import { useState } from 'react';
import { Button, CloseButton, Group, Progress, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ApiCallError } from '../api/client';
import { useErrorText } from '../lib/errors';
import { uploadFile } from '../lib/ledger';
import { Icon } from './icons';
import { HiddenFileInput, useFileChoice } from './FileChoice';

export interface PickedFile {
  fileId: string;
  name: string;
}

/** "Attach receipt": uploads at once with a progress bar; lists what is attached. */
export function AttachmentPicker({ files, onChange, label }: { files: PickedFile[]; onChange: (files: PickedFile[]) => void; label?: string }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const input = useFileChoice();
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const pick = async (file: File | undefined) => {
    if (!file) return;
    setError(null);
    setProgress(0);
    try {
      const fileId = await uploadFile(file, 'receipt', setProgress);
      onChange([...files, { fileId, name: file.name }]);
    } catch (err) {
      setError(err instanceof ApiCallError ? err : new ApiCallError(500, String(err)));
    } finally {
      setProgress(null);
      input.clear();
    }
  };
  return (
    <div>
      <HiddenFileInput choice={input} accept="image/*,application/pdf,text/plain,text/csv" testId="attachment-input" onFiles={(files) => void pick(files[0])} />
      <Group gap="xs">
        <Button variant="default" size="xs" leftSection={<Icon name="paperclip" size={14} />} onClick={() => input.open()} loading={progress !== null}>
          {label ?? t('records.attachReceipt')}
        </Button>
        {files.map((f) => (
          <Group key={f.fileId} gap={2} className="pp-chip">
            <Text size="xs">{f.name}</Text>
            <CloseButton size="xs" aria-label={t('records.removeAttachment', { name: f.name })} onClick={() => onChange(files.filter((x) => x.fileId !== f.fileId))} />
          </Group>
        ))}
      </Group>
      {progress !== null && <Progress value={progress * 100} size="sm" mt={6} aria-label={t('records.uploading')} animated />}
      {error !== null && (
        <Text size="xs" c="red" role="alert" mt={4}>
          {errorText(error)}
        </Text>
      )}
    </div>
  );
}
