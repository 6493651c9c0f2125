import { useRef, useState, type DragEvent, type FormEvent } from 'react';
import { ActionIcon, Anchor, Badge, Button, Group, Menu, Modal, Pagination, Progress, Select, Skeleton, Stack, Switch, Table, Tabs, Text, TextInput, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { ApiCallError, call, type ResultOf } from '../api/client';
import { CopyButton, Empty, ErrorNote, PageHeader } from '../components/common';
import { Icon } from '../components/icons';
import { invalidate, useAction, useApi } from '../lib/data';
import { useErrorText } from '../lib/errors';
import { fromDateInput, useFormat } from '../lib/format';
import { uploadFile } from '../lib/ledger';
import { navigate, useSearchParam } from '../lib/router';

type FileItem = ResultOf<'file.query'>['list'][number];
type LinkItem = ResultOf<'shortlink.list'>['list'][number];
const FILE_CATEGORIES = ['receipt', 'statement', 'photo', 'document'] as const;
const PAGE = 20;

export default function FilesPage() {
  const { t } = useTranslation();
  const param = useSearchParam('tab');
  const tab = param === 'links' ? 'links' : 'files';
  return (
    <div className="pp-page">
      <PageHeader title={t('files.title')} />
      <Tabs value={tab} onChange={(v) => navigate(v === 'links' ? '/files?tab=links' : '/files', { replace: true })} keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="files">{t('files.tabs.files')}</Tabs.Tab>
          <Tabs.Tab value="links">{t('files.tabs.links')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="files">
          <FilesTab />
        </Tabs.Panel>
        <Tabs.Panel value="links">
          <LinksTab />
        </Tabs.Panel>
      </Tabs>
    </div>
  );
}

const absolute = (url: string) => new URL(url, location.origin).href;

/* ------------------------------------------------------------------ files */

function FilesTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const errorText = useErrorText();
  const [page, setPage] = useState(1);
  const [category, setCategory] = useState<string | null>(null);
  const files = useApi('file.query', { page, pageSize: PAGE, ...(category ? { category } : {}) });
  const [uploadCategory, setUploadCategory] = useState<string>('receipt');
  const [uploads, setUploads] = useState<{ name: string; progress: number; error?: string }[]>([]);
  const [dragging, setDragging] = useState(false);
  const [deleting, setDeleting] = useState<{ file: FileItem; attached?: number } | null>(null);
  const input = useRef<HTMLInputElement>(null);
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
    if (input.current) input.current.value = '';
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    if (event.dataTransfer.files.length) void upload(event.dataTransfer.files);
  };
  const tryDelete = async (file: FileItem, force: boolean) => {
    const done = await remove.run(() => call('file.delete', { fileId: file.fileId, force }), { invalidate: true });
    if (done) {
      setDeleting(null);
      notifications.show({ color: 'teal', message: t('files.deleted') });
    }
  };
  const attachedCount = remove.error?.code === 409 ? Number((remove.error.data as { records?: number } | null)?.records ?? 0) : 0;
  const listed = files.data?.list ?? [];
  const pageBytes = listed.reduce((sum, x) => sum + x.fileSize, 0);

  return (
    <Stack>
      <div className="pp-dropzone" data-active={dragging} onDragOver={(e) => (e.preventDefault(), setDragging(true))} onDragLeave={() => setDragging(false)} onDrop={onDrop}>
        <input ref={input} type="file" multiple className="pp-visually-hidden" tabIndex={-1} aria-hidden="true" onChange={(e) => e.currentTarget.files && void upload(e.currentTarget.files)} data-testid="files-input" />
        <Group justify="center" gap="sm">
          <Text size="sm">{t('files.dropHint')}</Text>
          <Select size="xs" aria-label={t('files.uploadCategory')} value={uploadCategory} onChange={(v) => v && setUploadCategory(v)} allowDeselect={false} data={FILE_CATEGORIES.map((c) => ({ value: c, label: t(`files.categories.${c}`) }))} w={140} />
          <Button size="xs" onClick={() => input.current?.click()}>
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
      </div>
      <section className="pp-card">
        <Group justify="space-between" mb="sm">
          <Text size="sm" data-testid="file-stats">
            {files.data ? t('files.stats', { count: files.data.total, size: f.bytes(pageBytes) }) : '…'}
          </Text>
          <Select size="xs" aria-label={t('files.filterCategory')} placeholder={t('files.allCategories')} clearable value={category} onChange={(v) => (setCategory(v), setPage(1))} data={FILE_CATEGORIES.map((c) => ({ value: c, label: t(`files.categories.${c}`) }))} w={180} />
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
                <Table.Th w={100}>
                  <span className="pp-visually-hidden">{t('assets.actions')}</span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {listed.map((file) => (
                <Table.Tr key={file.fileId}>
                  <Table.Td>{file.fileType.startsWith('image/') && !file.missing ? <img src={file.signedUrl} alt="" className="pp-thumb" loading="lazy" /> : <Icon name="files" size={28} />}</Table.Td>
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
                        <ActionIcon variant="subtle" color="red" aria-label={t('files.deleteNamed', { name: file.fileName })} onClick={() => (remove.setError(null), setDeleting({ file }))}>
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
        {files.data && files.data.total > PAGE && (
          <Group justify="center" mt="sm">
            <Pagination total={Math.ceil(files.data.total / PAGE)} value={page} onChange={setPage} size="sm" getControlProps={(c) => ({ 'aria-label': t(`common.page.${c}`) })} />
          </Group>
        )}
        <Text size="xs" c="dimmed" mt="xs">
          {t('files.linkNote')}
        </Text>
      </section>
      <Modal opened={deleting !== null} onClose={() => setDeleting(null)} title={t('files.deleteTitle', { name: deleting?.file.fileName ?? '' })}>
        <Text size="sm" mb="md">
          {attachedCount > 0 ? t('files.attachedWarning', { count: attachedCount }) : t('files.deleteText')}
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setDeleting(null)}>
            {t('common.cancel')}
          </Button>
          <Button color="red" loading={remove.busy} onClick={() => deleting && void tryDelete(deleting.file, attachedCount > 0)}>
            {attachedCount > 0 ? t('files.deleteAnyway') : t('files.delete')}
          </Button>
        </Group>
      </Modal>
    </Stack>
  );
}

/* ------------------------------------------------------------------ short links */

function LinksTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const errorText = useErrorText();
  const [page, setPage] = useState(1);
  const links = useApi('shortlink.list', { page, pageSize: PAGE });
  const [url, setUrl] = useState('');
  const [alias, setAlias] = useState('');
  const [title, setTitle] = useState('');
  const [expires, setExpires] = useState('');
  const [isPublic, setIsPublic] = useState(true);
  const create = useAction();
  const change = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const expireDay = fromDateInput(expires);
    const link = await create.run(() =>
      call('shortlink.create', {
        url: url.trim(),
        isPublic,
        ...(alias.trim() ? { alias: alias.trim() } : {}),
        ...(title.trim() ? { title: title.trim() } : {}),
        ...(expireDay !== null ? { expireAt: expireDay + 86_400_000 - 1 } : {}),
      }),
    );
    if (link) {
      setUrl('');
      setAlias('');
      setTitle('');
      setExpires('');
      notifications.show({ color: 'teal', message: t('links.created', { url: link.shortUrl }) });
    }
  };
  const fieldErr = (field: string) => (create.error && create.error.field === field ? errorText(create.error) : null);
  const list = links.data?.list ?? [];
  const clicks = list.reduce((sum, l) => sum + l.accessCount, 0);
  return (
    <Stack>
      <form className="pp-card" onSubmit={submit} aria-label={t('links.new')}>
        <Group align="flex-start" gap="sm">
          <TextInput label={t('links.target')} placeholder="https://…" value={url} onChange={(e) => setUrl(e.currentTarget.value)} required style={{ flex: 3 }} error={fieldErr('url') ?? (create.error && !create.error.field && create.error.code === 400 ? errorText(create.error) : null)} />
          <TextInput label={t('links.alias')} description={t('links.aliasHint')} value={alias} onChange={(e) => setAlias(e.currentTarget.value)} style={{ flex: 1 }} error={fieldErr('alias') ?? (create.error?.code === 409 ? errorText(create.error) : null)} />
          <TextInput label={t('links.linkTitle')} value={title} onChange={(e) => setTitle(e.currentTarget.value)} style={{ flex: 1.5 }} maxLength={200} />
          <TextInput label={t('links.expires')} type="date" value={expires} onChange={(e) => setExpires(e.currentTarget.value)} error={fieldErr('expireAt')} />
        </Group>
        <Group justify="space-between" mt="sm">
          <Switch label={t('links.public')} description={t('links.publicHint')} checked={isPublic} onChange={(e) => setIsPublic(e.currentTarget.checked)} />
          <Button type="submit" loading={create.busy} disabled={!url.trim()}>
            {t('links.create')}
          </Button>
        </Group>
      </form>
      <section className="pp-card">
        <Text size="sm" mb="sm" data-testid="link-stats">
          {links.data ? t('links.stats', { count: links.data.total, clicks: f.number(clicks) }) : '…'}
        </Text>
        <ErrorNote error={links.error ?? change.error} onRetry={links.reload} />
        {!links.data ? (
          <Skeleton h={160} />
        ) : list.length === 0 ? (
          <Empty>{t('links.none')}</Empty>
        ) : (
          <Table aria-label={t('files.tabs.links')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('links.shortUrl')}</Table.Th>
                <Table.Th>{t('links.target')}</Table.Th>
                <Table.Th ta="right">{t('links.clicks')}</Table.Th>
                <Table.Th>{t('links.lastAccess')}</Table.Th>
                <Table.Th miw={170}>{t('push.status')}</Table.Th>
                <Table.Th w={90}>
                  <span className="pp-visually-hidden">{t('assets.actions')}</span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((link) => (
                <LinkRow key={link.id} link={link} onToggle={() => void change.run(() => call('shortlink.update', { id: link.id, isPublic: !link.isPublic }))} onDelete={() => void change.run(() => call('shortlink.delete', { id: link.id }))} />
              ))}
            </Table.Tbody>
          </Table>
        )}
        {links.data && links.data.total > PAGE && (
          <Group justify="center" mt="sm">
            <Pagination total={Math.ceil(links.data.total / PAGE)} value={page} onChange={setPage} size="sm" getControlProps={(c) => ({ 'aria-label': t(`common.page.${c}`) })} />
          </Group>
        )}
      </section>
    </Stack>
  );
}

function LinkRow({ link, onToggle, onDelete }: { link: LinkItem; onToggle: () => void; onDelete: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const owner = 'ownerUrl' in link ? (link as { ownerUrl?: string }).ownerUrl : undefined;
  return (
    <Table.Tr>
      <Table.Td>
        <Group gap={4} wrap="nowrap">
          <Text size="sm" className="pp-code">
            {link.shortUrl}
          </Text>
          <CopyButton value={link.isPublic || !owner ? link.shortUrl : owner} label={t('links.copy', { code: link.code })} />
        </Group>
        {link.title && (
          <Text size="xs" c="dimmed">
            {link.title}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Text size="sm" truncate maw={320} title={link.url}>
          {link.url}
        </Text>
      </Table.Td>
      <Table.Td ta="right" className="pp-num">
        {link.accessCount}
      </Table.Td>
      <Table.Td>{link.lastAccessAt ? f.date(link.lastAccessAt, 'datetime') : '—'}</Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap">
          <Badge variant="light" color={link.isPublic ? 'teal' : 'gray'} style={{ flex: 'none' }}>
            {link.isPublic ? t('links.publicBadge') : t('links.privateBadge')}
          </Badge>
          {link.expired ? (
            <Badge variant="light" color="red">
              {t('links.expired')}
            </Badge>
          ) : link.expireAt ? (
            <Badge variant="light" color="yellow">
              {t('links.until', { date: f.date(link.expireAt) })}
            </Badge>
          ) : null}
        </Group>
      </Table.Td>
      <Table.Td>
        <Menu position="bottom-end">
          <Menu.Target>
            <ActionIcon variant="subtle" aria-label={t('links.actions', { code: link.code })}>
              ⋯
            </ActionIcon>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item component="a" href={link.shortUrl} target="_blank" rel="noreferrer">
              {t('links.open')}
            </Menu.Item>
            <Menu.Item onClick={onToggle}>{link.isPublic ? t('links.makePrivate') : t('links.makePublic')}</Menu.Item>
            <Menu.Item color="red" onClick={onDelete}>
              {t('links.delete')}
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
      </Table.Td>
    </Table.Tr>
  );
}
