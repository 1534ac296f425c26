/** This SDK's version, sent in the `User-Agent`. Kept equal to package.json's by a test. */
export const VERSION = '0.1.0';
