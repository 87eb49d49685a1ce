/**
 * `[chains.<name>]` tables and their CHAIN_<NAME>_* variables: several chains in one deployment,
 * each with its upstream, optional chain id, hardfork and kind; the bad ones refused at load with
 * the key and where it came from.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../config/loadConfig.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const withToml = (extra: string): string => {
  const dir = mkdtempSync(join(tmpdir(), 'cfg-'))
  writeFileSync(join(dir, 'test.toml'), `${readFileSync(join(root, 'config/test.toml'), 'utf8')}\n${extra}\n`)
  return dir
}

describe('chains config', () => {
  it('has no extra chain by default', () => {
    expect(loadConfig({ env: { APP_ENV: 'test' } }).chains).toEqual({})
  })

  it('reads [chains.<name>] tables', () => {
    const dir = withToml(
      '[chains.base]\nrpc_url = "http://127.0.0.1:9545"\nchain_id = 8453\nkind = "op-stack"\nhardfork = "isthmus"\n\n[chains.mainnet]\nrpc_url = "http://127.0.0.1:8545"\n',
    )
    const c = loadConfig({ env: { APP_ENV: 'test' }, configDir: dir })
    expect(c.chains).toEqual({
      base: { rpc_url: 'http://127.0.0.1:9545', chain_id: 8453, kind: 'op-stack', hardfork: 'isthmus' },
      mainnet: { rpc_url: 'http://127.0.0.1:8545' },
    })
  })

  it('reads CHAIN_<NAME>_* variables, `_` in the name standing for `-`, over the file', () => {
    const dir = withToml('[chains.base]\nrpc_url = "http://file"\n')
    const c = loadConfig({
      env: {
        APP_ENV: 'test',
        CHAIN_BASE_RPC_URL: 'http://env',
        CHAIN_OP_SEPOLIA_RPC_URL: 'http://op',
        CHAIN_OP_SEPOLIA_CHAIN_ID: '11155420',
        CHAIN_OP_SEPOLIA_KIND: 'op-stack',
      },
      configDir: dir,
    })
    expect(c.chains.base).toEqual({ rpc_url: 'http://env' })
    expect(c.chains['op-sepolia']).toEqual({ rpc_url: 'http://op', chain_id: 11155420, kind: 'op-stack' })
  })

  it('the default chain takes CHAIN_ID and CHAIN_KIND', () => {
    const c = loadConfig({ env: { APP_ENV: 'test', CHAIN_ID: '10', CHAIN_KIND: 'op-stack' } })
    expect(c.chain).toMatchObject({ chain_id: 10, kind: 'op-stack' })
    expect(c.chains).toEqual({})
  })

  it('a chain without rpc_url is an embedded devnet of its kind', () => {
    const c = loadConfig({ env: { APP_ENV: 'test', CHAIN_OPDEV_KIND: 'op-stack', CHAIN_OPDEV_HARDFORK: 'fjord' } })
    expect(c.chains.opdev).toEqual({ kind: 'op-stack', hardfork: 'fjord' })
  })

  it.each([
    [{ CHAIN_BASE_RPC_URL: '' }, /config chains\.base\.rpc_url \(from CHAIN_BASE_RPC_URL\): .*leave it out for an embedded devnet/],
    [{ CHAIN_BASE_RPC_URL: 'http://x', CHAIN_BASE_KIND: 'polygon' }, /config chains\.base\.kind \(from CHAIN_BASE_KIND\): /],
    [
      { CHAIN_BASE_RPC_URL: 'http://x', CHAIN_BASE_CHAIN_ID: 'eight' },
      /config chains\.base\.chain_id \(from CHAIN_BASE_CHAIN_ID\): expected a non-negative integer/,
    ],
  ])('refuses %j with the key named', (env, message) => {
    expect(() => loadConfig({ env: { APP_ENV: 'test', ...env } })).toThrow(message)
  })

  it('refuses a chain name outside [a-z0-9-]', () => {
    const dir = withToml('[chains.Base_Main]\nrpc_url = "http://x"\n')
    expect(() => loadConfig({ env: { APP_ENV: 'test' }, configDir: dir })).toThrow(/chains.*lower-case letters, digits and -/)
  })
})
