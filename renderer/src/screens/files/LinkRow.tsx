import { Badge, Group, Menu, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ResultOf } from '../../api/client';
import { CopyButton } from '../../components/common';
import { useFormat } from '../../lib/format';
import { RowMenu } from '../../components/RowMenu';

type LinkItem = ResultOf<'shortlink.list'>['list'][number];

/** A short link on one line: the host may be cut with an ellipsis, the path (/s/code) never; the whole URL is in the title and the copy button. */
function ShortUrl({ url }: { url: string }) {
  const split = url.match(/^([a-z][a-z0-9+.-]*:\/\/[^/]+)(\/.*)$/i);
  return (
    <span className="pp-short-url" title={url} data-testid="short-url">
      <span className="pp-short-url-host">{split ? split[1] : ''}</span>
      <span className="pp-short-url-path">{split ? split[2] : url}</span>
    </span>
  );
}

export function LinkRow({ link, onToggle, onDelete }: { link: LinkItem; onToggle: () => void; onDelete: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const owner = 'ownerUrl' in link ? (link as { ownerUrl?: string }).ownerUrl : undefined;
  return (
    <Table.Tr>
      <Table.Td>
        <Group gap={4} wrap="nowrap">
          <ShortUrl url={link.shortUrl} />
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
        <Group gap={4}>
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
        <RowMenu label={t('links.actions', { code: link.code })}>
          <Menu.Item component="a" href={link.shortUrl} target="_blank" rel="noreferrer">
            {t('links.open')}
          </Menu.Item>
          <Menu.Item onClick={onToggle}>{link.isPublic ? t('links.makePrivate') : t('links.makePublic')}</Menu.Item>
          <Menu.Item color="red" onClick={onDelete}>
            {t('links.delete')}
          </Menu.Item>
        </RowMenu>
      </Table.Td>
    </Table.Tr>
  );
}
