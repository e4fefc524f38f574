import { secretOption } from '../../../../src/core/registrar/plugin';

/** A plugin's secret option, inline or through the variable `<name>Env` names (docs/plugins.md#options). */
describe('a secret option of a plugin', () => {
  const env = { ACME_PASSWORD: '  s3cret-from-env \n', EMPTY: '' };

  it('takes the value from the environment variable <name>Env names, without surrounding white space', () => {
    expect(secretOption({ passwordEnv: 'ACME_PASSWORD' }, 'password', env)).toEqual({ value: 's3cret-from-env' });
  });

  it('takes the inline value when no variable is named', () => {
    expect(secretOption({ apiKey: ' inline-key ' }, 'apiKey', env)).toEqual({ value: 'inline-key' });
  });

  it.each([
    [{}, 'password or passwordEnv is required'],
    [{ password: '' }, 'password or passwordEnv is required'],
    [{ password: 'x', passwordEnv: 'ACME_PASSWORD' }, 'give password or passwordEnv, not both'],
    [{ passwordEnv: 'EMPTY' }, 'passwordEnv names EMPTY, which is not set'],
    [{ passwordEnv: 'NOT_THERE' }, 'passwordEnv names NOT_THERE, which is not set'],
    [{ passwordEnv: 'not a name' }, 'passwordEnv must be the name of an environment variable, like ACME_PASSWORD'],
    [{ password: 42 }, 'password must be text'],
    [{ passwordEnv: ['ACME_PASSWORD'] }, 'passwordEnv must be text'],
  ])('says what is wrong with %j, never the secret', (raw, problem) => {
    const answer = secretOption(raw, 'password', env, 'ACME_PASSWORD');
    expect(answer).toEqual({ problem });
    expect(JSON.stringify(answer)).not.toContain('s3cret');
  });

  it('never repeats a secret put by mistake where the variable name goes', () => {
    for (const pasted of ['Sup3rS3cretPassw0rd', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc']) {
      const answer = secretOption({ passwordEnv: pasted }, 'password', env, 'ACME_PASSWORD');
      expect(answer.problem).toBe(
        'passwordEnv names a variable that is not set (the name is not repeated: it may be the secret itself)',
      );
      expect(JSON.stringify(answer)).not.toContain(pasted);
    }
  });

  it('names an example variable after the option by default', () => {
    expect(secretOption({ apiKeyEnv: '1bad' }, 'apiKey', env)).toEqual({
      problem: 'apiKeyEnv must be the name of an environment variable, like API_KEY',
    });
  });
});
