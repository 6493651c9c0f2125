import type { ParamsOf, ResultOf } from '../../../api/client';

/** What import.preview answers: the counts and every line of the file by what the import does with it. */
export type PreviewResult = ResultOf<'import.preview'>;
export type PreviewLine = PreviewResult['create'][number];
export type InvalidLine = PreviewResult['invalid'][number];
export type CommitResult = ResultOf<'import.commit'>;
/** import.describeCsv: the header, a sample and a first mapping of a generic CSV. */
export type CsvDescription = ResultOf<'import.describeCsv'>;
export type CsvMapping = NonNullable<ParamsOf<'import.preview'>['mapping']>;
/** A mapping being chosen: the server's guess may lack the date or the amount. */
export type MappingDraft = Partial<CsvMapping>;
/** One change to a previewed line: left out, included anyway, included as a transfer, another category. */
export type LineOverride = NonNullable<ParamsOf<'import.commit'>['overrides']>[number];
/** Where the server reads the file from: the bytes themselves, or an earlier upload. */
export type StatementSource = { content: string } | { uploadId: string };
/** The order of a QIF file's date parts, when the preview says it is ambiguous. */
export type DateOrder = NonNullable<ParamsOf<'import.preview'>['dateOrder']>;
/** A likely duplicate's line, with the record it looks like. */
export type LikelyLine = PreviewLine & { match?: { id: string; date: number; description: string; category: string; amount: number } };
