/** Rows per page in the lists of files and of short links. */
export const PAGE_SIZE = 20;
