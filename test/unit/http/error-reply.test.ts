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

  it('answers a deadlock that outlasted every retry with 503 and Retry-After, never 500', () => {
    expect(errorReply(driverError('ER_LOCK_DEADLOCK', 1213), 'r1')).toEqual({
      status: 503,
      message: 'The database is busy with conflicting changes; nothing was done, try again in a few seconds',
      retryAfterSeconds: 2,
    });
  });

  it('keeps anything else a 500 naming the request id', () => {
    expect(errorReply(new Error('a bug'), 'r1')).toEqual({
      status: 500,
      message: 'Internal server error (request id r1)',
    });
  });
});
