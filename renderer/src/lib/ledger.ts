import { useMemo } from 'react';
import { call, putBytes, type ResultOf } from '../api/client';
import { currentLanguage } from '../i18n';
import { useApi } from './data';
import { languageCurrency } from './locale';
import sharedLists from '../api/generated/shared-lists.json';
import type { AssetType } from '../../../server/ledger/schema';

export type Asset = ResultOf<'asset.query'>['list'][number];
export type LedgerRecord = ResultOf<'accounting.query'>['list'][number];
export type Category = ResultOf<'category.list'>['list'][number];
/** The ledger's asset types, in its order (generated from server/ledger/schema.ts by scripts/gen-validators.ts). */
export const ASSET_TYPES = sharedLists.assetTypes as readonly AssetType[];
export const RECORD_TYPES = ['expense', 'income', 'transfer'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

/** Every non-deleted asset (the API pages at 200, far above what a person keeps). */
export function useAssets() {
  const state = useApi('asset.query', { page: 1, pageSize: 200 });
  const list = useMemo(() => state.data?.list ?? [], [state.data]);
  const active = useMemo(() => list.filter((a) => a.status !== 'archived'), [list]);
  const byId = useMemo(() => new Map(list.map((a) => [a.id, a])), [list]);
  return {
    ...state,
    list,
    active,
    byId,
    defaultAsset: list.find((a) => a.isDefault) ?? active.at(0),
    baseCurrency: state.data?.baseCurrency ?? languageCurrency(currentLanguage()),
  };
}

export function useCategories() {
  const state = useApi('category.list', {});
  const list = useMemo(() => state.data?.list ?? [], [state.data]);
  return { ...state, list, income: list.filter((c) => c.type === 'income'), expense: list.filter((c) => c.type === 'expense') };
}

const LAST_CATEGORY = 'pennypost.lastCategory.';
export function lastCategory(type: 'income' | 'expense'): string | null {
  return localStorage.getItem(LAST_CATEGORY + type);
}
export function rememberCategory(type: 'income' | 'expense', name: string): void {
  localStorage.setItem(LAST_CATEGORY + type, name);
}

const EXTENSION_TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  avif: 'image/avif',
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
};
export function mediaTypeOf(file: File): string {
  if (file.type) return file.type;
  const ext = file.name.split('.').pop()?.toLowerCase() ?? '';
  return EXTENSION_TYPES[ext] ?? 'application/octet-stream';
}

/** file.upload, then PUT the bytes to the single-use URL. Answers the new file id. */
export async function uploadFile(file: File, category: string, onProgress?: (fraction: number) => void): Promise<string> {
  const announced = await call('file.upload', {
    // eslint-disable-next-line no-control-regex -- control characters are not allowed in stored file names
    fileName: file.name.replace(/[\u0000-\u001f\u007f/\\]/g, '_').slice(0, 255) || 'file',
    fileType: mediaTypeOf(file),
    fileSize: file.size,
    category,
  });
  await putBytes(announced.uploadUrl, file, onProgress);
  return announced.fileId;
}
