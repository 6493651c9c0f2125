export declare const COUCHDB_VERSION: string;
export declare const COUCHDB_BIN: string;
export declare const BUILD_PACKAGES: string[];
export declare function isBuilt(): boolean;
export declare function build(options?: { quiet?: boolean }): void;
export declare function start(port: number, dir: string, options?: { adminPassword?: string }): Promise<string>;
export declare function stop(dir: string): boolean;
