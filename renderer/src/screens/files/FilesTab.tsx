import { useState } from 'react';
import { ActionIcon, Anchor, Badge, Button, Group, Pagination, Progress, Select, Skeleton, Stack, Table, Text, Tooltip } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ApiCallError } from '../../api/client';
import { ActionsHeader, CopyButton, Empty, ErrorNote } from '../../components/common';
import { Icon } from '../../components/icons';
import { invalidate, useAction, useApi } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { useFormat } from '../../lib/format';
import { uploadFile } from '../../lib/ledger';
import { PAGE_SIZE } from './paging';
import { DeleteFileDialog } from './DeleteFileDialog';
import type { FileItem } from './file-item';
import { DropZone, HiddenFileInput, useFileChoice } from '../../components/FileChoice';

const FILE_CATEGORIES = ['receipt', 'statement', 'photo', 'document'] as const;
const absolute = (url: string) => new URL(url, location.origin).href;

export function FilesTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const errorText = useErrorText();
  const [page, setPage] = useState(1);
  const [category, setCategory] = useState<string | null>(null);
  const files = useApi('file.query', { page, pageSize: PAGE_SIZE, ...(category ? { category } : {}) });
  const [uploadCategory, setUploadCategory] = useState<string>('receipt');
  const [uploads, setUploads] = useState<{ name: string; progress: number; error?: string }[]>([]);
  const [deleting, setDeleting] = useState<FileItem | null>(null);
  const input = useFileChoice();
  const remove = useAction();

  const upload = async (list: FileList | File[]) => {
    const chosen = [...list];
    setUploads(chosen.map((file) => ({ name: file.name, progress: 0 })));
    for (const [index, file] of chosen.entries()) {
      try {
        await uploadFile(file, uploadCategory, (progress) => setUploads((u) => u.map((x, i) => (i === index ? { ...x, progress } : x))));
        setUploads((u) => u.map((x, i) => (i === index ? { ...x, progress: 1 } : x)));
      } catch (err) {
        setUploads((u) => u.map((x, i) => (i === index ? { ...x, error: errorText(err instanceof ApiCallError ? err : new ApiCallError(500, String(err))) } : x)));
      }
    }
    invalidate();
    input.clear();
  };
  const listed = files.data?.list ?? [];
  const pageBytes = listed.reduce((sum, x) => sum + x.fileSize, 0);

  return (
    <Stack>
      <DropZone onFiles={(files) => void upload(files)}>
        <HiddenFileInput choice={input} multiple testId="files-input" onFiles={(files) => void upload(files)} />
        <Group justify="center" gap="sm">
          <Text size="sm">{t('files.dropHint')}</Text>
          <Select
            size="xs"
            aria-label={t('files.uploadCategory')}
            value={uploadCategory}
            onChange={(v) => v && setUploadCategory(v)}
            allowDeselect={false}
            data={FILE_CATEGORIES.map((c) => ({ value: c, label: t(`files.categories.${c}`) }))}
            w={140}
          />
          <Button size="xs" onClick={() => input.open()}>
            {t('files.upload')}
          </Button>
        </Group>
        <Text size="xs" c="dimmed" mt={6}>
          {t('files.accepted')}
        </Text>
        {uploads.length > 0 && (
          <Stack gap={4} mt="sm" aria-live="polite">
            {uploads.map((u, i) => (
              <div key={`${u.name}-${i}`}>
                <Group justify="space-between">
                  <Text size="xs">{u.name}</Text>
                  <Text size="xs" c={u.error ? 'red' : u.progress >= 1 ? 'teal' : 'dimmed'} role={u.error ? 'alert' : undefined}>
                    {u.error ?? (u.progress >= 1 ? t('files.uploaded') : f.percent(u.progress, 0))}
                  </Text>
                </Group>
                {!u.error && u.progress < 1 && <Progress value={u.progress * 100} size="xs" aria-label={t('files.uploadProgress', { name: u.name })} />}
              </div>
            ))}
          </Stack>
        )}
      </DropZone>
      <section className="pp-card">
        <Group justify="space-between" mb="sm">
          <Text size="sm" data-testid="file-stats">
            {files.data ? t('files.stats', { count: files.data.total, size: f.bytes(pageBytes) }) : '…'}
          </Text>
          <Select
            size="xs"
            aria-label={t('files.filterCategory')}
            placeholder={t('files.allCategories')}
            clearable
            value={category}
            onChange={(v) => {
              setCategory(v);
              setPage(1);
            }}
            data={FILE_CATEGORIES.map((c) => ({ value: c, label: t(`files.categories.${c}`) }))}
            w={180}
          />
        </Group>
        <ErrorNote error={files.error ?? (remove.error && remove.error.code !== 409 ? remove.error : null)} onRetry={files.reload} />
        {!files.data ? (
          <Skeleton h={160} />
        ) : listed.length === 0 ? (
          <Empty>{t('files.none')}</Empty>
        ) : (
          <Table verticalSpacing="xs" aria-label={t('files.tabs.files')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={56}>
                  <span className="pp-visually-hidden">{t('files.preview')}</span>
                </Table.Th>
                <Table.Th>{t('files.name')}</Table.Th>
                <Table.Th>{t('files.category')}</Table.Th>
                <Table.Th ta="right">{t('files.size')}</Table.Th>
                <Table.Th>{t('files.added')}</Table.Th>
                <ActionsHeader width={100} />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {listed.map((file) => (
                <Table.Tr key={file.fileId}>
                  <Table.Td>
                    {file.fileType.startsWith('image/') && !file.missing ? (
                      <img src={file.signedUrl} alt="" className="pp-thumb" loading="lazy" />
                    ) : (
                      <Icon name="files" size={28} />
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Anchor href={file.signedUrl} target="_blank" rel="noreferrer" size="sm">
                      {file.fileName}
                    </Anchor>
                    {file.missing && (
                      <Badge ml="xs" color="red" variant="light" size="xs">
                        {t('files.missing')}
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td>{t(`files.categories.${file.category as 'receipt'}`, { defaultValue: file.category || '—' })}</Table.Td>
                  <Table.Td ta="right" className="pp-num">
                    {f.bytes(file.fileSize)}
                  </Table.Td>
                  <Table.Td>{f.date(file.createdAt)}</Table.Td>
                  <Table.Td>
                    <Group gap={4} wrap="nowrap">
                      <CopyButton value={absolute(file.signedUrl)} label={t('files.copyLink', { name: file.fileName })} />
                      <Tooltip label={t('files.delete')}>
                        <ActionIcon
                          variant="subtle"
                          color="red"
                          aria-label={t('files.deleteNamed', { name: file.fileName })}
                          onClick={() => {
                            remove.setError(null);
                            setDeleting(file);
                          }}
                        >
                          <Icon name="trash" size={16} />
                        </ActionIcon>
                      </Tooltip>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        {files.data && files.data.total > PAGE_SIZE && (
          <Group justify="center" mt="sm">
            <Pagination
              total={Math.ceil(files.data.total / PAGE_SIZE)}
              value={page}
              onChange={setPage}
              size="sm"
              getControlProps={(c) => ({ 'aria-label': t(`common.page.${c}`) })}
            />
          </Group>
        )}
        <Text size="xs" c="dimmed" mt="xs">
          {t('files.linkNote')}
        </Text>
      </section>
      <DeleteFileDialog file={deleting} remove={remove} onClose={() => setDeleting(null)} />
    </Stack>
  );
}
