const ANSWER_WITHIN_MS = 2_000;

/**
 * "ok", or why one of `probes` (a trivial statement on each way the module reaches the database:
 * `DatabasePools.check`) does not answer within two seconds.
 */
export async function databaseAnswers(probes: readonly (() => Promise<unknown>)[]): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.all(probes.map((probe) => probe())),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_WITHIN_MS / 1000} s`)), ANSWER_WITHIN_MS);
      }),
    ]);
    return 'ok';
  } catch (error) {
    return `unreachable (${error instanceof Error ? error.message.split('\n')[0]!.slice(0, 120) : 'error'})`;
  } finally {
    clearTimeout(timer);
  }
}
