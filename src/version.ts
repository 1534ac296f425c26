/**
 * This SDK's version, sent in the `User-Agent`. Kept equal to package.json's by a test.
 *
 * @group Client
 */
export const VERSION = '0.1.0';
