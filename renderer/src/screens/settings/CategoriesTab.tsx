import { useTranslation } from 'react-i18next';
import { useCategories } from '../../lib/ledger';
import { CategoryList } from './CategoryList';

export function CategoriesTab() {
  const { t } = useTranslation();
  const categories = useCategories();
  return (
    <div className="pp-grid pp-grid-2">
      {(['expense', 'income'] as const).map((type) => (
        <CategoryList
          key={type}
          type={type}
          list={type === 'expense' ? categories.expense : categories.income}
          loading={!categories.data}
          title={t(`settings.categories.${type}`)}
        />
      ))}
    </div>
  );
}
