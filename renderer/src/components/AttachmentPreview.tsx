import { useEffect, useState } from 'react';
import { Anchor, Modal, Stack, Text, UnstyledButton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { fetchBlobUrl } from '../api/client';
import { useFormat } from '../lib/format';

interface Attachment {
  fileId: string;
  fileName?: string;
  fileType?: string;
  fileSize?: number;
  url?: string;
  missing: boolean;
}

/** A receipt: a thumbnail (images) that opens a large preview, or a link that opens the file. */
export function AttachmentPreview({ attachment }: { attachment: Attachment }) {
  const { t } = useTranslation();
  const f = useFormat();
  const [src, setSrc] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const [open, setOpen] = useState(false);
  const isImage = attachment.fileType?.startsWith('image/') ?? false;
  useEffect(() => {
    if (!attachment.url || attachment.missing || !isImage) return;
    let url: string | null = null;
    let cancelled = false;
    fetchBlobUrl(attachment.url).then(
      (u) => {
        url = u;
        if (cancelled) URL.revokeObjectURL(u);
        else setSrc(u);
      },
      () => setFailed(true),
    );
    return () => {
      cancelled = true;
      if (url) URL.revokeObjectURL(url);
    };
  }, [attachment.url, attachment.missing, isImage]);
  const name = attachment.fileName ?? attachment.fileId;
  if (attachment.missing || failed) {
    return (
      <Text size="xs" c="dimmed">
        {t('records.fileMissing', { name })}
      </Text>
    );
  }
  if (!isImage) {
    return (
      <Anchor
        size="sm"
        href="#"
        onClick={(e) => {
          e.preventDefault();
          if (attachment.url) void fetchBlobUrl(attachment.url).then((u) => window.open(u, '_blank', 'noopener'));
        }}
      >
        {name}
        {attachment.fileSize ? ` (${f.bytes(attachment.fileSize)})` : ''}
      </Anchor>
    );
  }
  return (
    <>
      <UnstyledButton onClick={() => setOpen(true)} aria-label={t('records.previewFile', { name })}>
        {src ? <img src={src} alt={name} className="pp-thumb" /> : <div className="pp-thumb" />}
      </UnstyledButton>
      <Modal opened={open} onClose={() => setOpen(false)} title={name} size="xl">
        <Stack>{src && <img src={src} alt={name} className="pp-preview" />}</Stack>
      </Modal>
    </>
  );
}
