/** Absolute path of the folder holding the admin UI's static pages and assets. */
export declare const assetsDir: string;
