import type { ResultOf } from '../../api/client';

/** A file as the Files screen lists it (file.query). */
export type FileItem = ResultOf<'file.query'>['list'][number];
