import { errorReply } from '../../../src/http/http-api';

const driverError = (code: string, errno: number) => Object.assign(new Error(code), { code, errno });

describe('errorReply for database faults', () => {
  it.each([
    ['a connection lost', driverError('PROTOCOL_CONNECTION_LOST', 0)],
    ['a connection refused', driverError('ECONNREFUSED', 0)],
    ['a Galera node not in the primary component', driverError('ER_UNKNOWN_COM_ERROR', 1047)],
  ])('answers %s with 503 and Retry-After', (_, error) => {
    expect(errorReply(error, 'r1')).toEqual({
      status: 503,
      message: 'The database is not answering; try again in a few seconds',
      retryAfterSeconds: 2,
    });
  });

  // Not "nothing was done": a domain operation may have asked the registrar before its record failed.
  it('answers a deadlock that outlasted every retry with 503 and Retry-After, never 500, without saying nothing was done', () => {
    const reply = errorReply(driverError('ER_LOCK_DEADLOCK', 1213), 'r1');
    expect(reply).toEqual({
      status: 503,
      message:
        'The database is busy with conflicting changes; try again in a few seconds (an order sent again with its Idempotency-Key is never charged twice)',
      retryAfterSeconds: 2,
    });
    expect(reply.message).not.toMatch(/nothing was done/);
  });

  // Issue 26: a renewal race on Galera got a 500 after 50 s (innodb_lock_wait_timeout). The reply
  // makes no claim about what was done: on some routes a registrar call came before the wait.
  it('answers a lock wait timeout with 503 and Retry-After, never 500, without saying nothing was done', () => {
    const reply = errorReply(driverError('ER_LOCK_WAIT_TIMEOUT', 1205), 'r1');
    expect(reply).toEqual({
      status: 503,
      message:
        'The database waited too long for another change to finish; try again in a few seconds (an order sent again with its Idempotency-Key is never charged twice)',
      retryAfterSeconds: 2,
    });
    expect(reply.message).not.toMatch(/nothing was done/);
  });

  it('keeps anything else a 500 naming the request id', () => {
    expect(errorReply(new Error('a bug'), 'r1')).toEqual({
      status: 500,
      message: 'Internal server error (request id r1)',
    });
  });
});
