import { useEffect, useState } from 'react';
import { Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { useFormat } from '../../lib/format';
import { useAssets, type Asset } from '../../lib/ledger';
import { Card } from '../../components/Card';
import { ShareBody, SharePie, ShareTable } from './ShareParts';

interface Valued {
  asset: Asset;
  /** The balance in the base currency (null: no exchange rate). */
  value: number | null;
}

/** Every asset's balance in the base currency, converted by the server (currency.convert) where it is another currency. */
function useBaseValues(assets: readonly Asset[], base: string, ready: boolean): Valued[] | null {
  const [values, setValues] = useState<Valued[] | null>(null);
  const key = JSON.stringify(assets.map((a) => [a.id, a.balance, a.currency]).concat([[base]]));
  useEffect(() => {
    if (!ready) return;
    let live = true;
    void Promise.all(
      assets.map(async (asset): Promise<Valued> => {
        if (asset.currency === base || asset.balance === 0) return { asset, value: asset.currency === base ? asset.balance : 0 };
        const converted = await call('currency.convert', { amount: Math.abs(asset.balance), from: asset.currency, to: base }).catch(() => ({ amount: null }));
        return { asset, value: converted.amount === null ? null : Math.sign(asset.balance) * converted.amount };
      }),
    ).then((list) => live && setValues(list));
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- key: the assets' ids, balances and currencies, and the base
  }, [key, ready]);
  return values;
}

/**
 * How the money is spread over the assets (it was by asset type): a pie of the assets with money
 * on them, in the base currency, and every asset ranked by its value with its share of the total
 * (issue 36, finding 15). Debts are listed, not drawn.
 */
export function AssetShare() {
  const { t } = useTranslation();
  const f = useFormat();
  const assets = useAssets();
  const base = assets.baseCurrency;
  const values = useBaseValues(assets.list, base, assets.data !== undefined);
  const ranked = values ? [...values].sort((a, b) => (b.value ?? -Infinity) - (a.value ?? -Infinity)) : null;
  const positive = ranked?.filter((v) => v.value !== null && v.value > 0) ?? [];
  const total = positive.reduce((sum, v) => sum + (v.value ?? 0), 0);
  return (
    <Card id="st-assets" title={t('stats.assetDistribution')}>
      <ShareBody loading={!ranked} empty={ranked?.length === 0}>
        {positive.length > 0 && (
          <SharePie
            label={t('stats.assetDistributionChart')}
            name={t('stats.assetDistribution')}
            currency={base}
            slices={positive.map((v) => ({ name: v.asset.name, value: v.value }))}
          />
        )}
        <ShareTable
          label={t('stats.rankedAssets')}
          testId="asset-ranking"
          columns={[
            { label: t('records.asset') },
            { label: t('assets.balance'), figure: true },
            { label: t('stats.inBase', { currency: base }), figure: true },
            { label: t('stats.share'), figure: true },
          ]}
        >
          {ranked?.map(({ asset, value }) => (
            <Table.Tr key={asset.id}>
              <Table.Td>
                <Text size="sm" truncate title={asset.name}>
                  {asset.name}
                </Text>
              </Table.Td>
              <Table.Td ta="right" className={`pp-num ${asset.balance < 0 ? 'pp-expense' : ''}`}>
                {f.money(asset.balance, asset.currency)}
              </Table.Td>
              <Table.Td ta="right" className="pp-num">
                {value === null ? t('assets.noRate') : f.money(value, base)}
              </Table.Td>
              <Table.Td ta="right" className="pp-num">
                {value !== null && value > 0 && total > 0 ? f.percent(value / total) : '—'}
              </Table.Td>
            </Table.Tr>
          ))}
        </ShareTable>
      </ShareBody>
    </Card>
  );
}
