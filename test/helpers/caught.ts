/** The error a promise rejects with; fails the test if it resolves. Typed loosely so tests can inspect any field. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields of the errors they provoke
export async function caught(promise: PromiseLike<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject, but it resolved');
}
