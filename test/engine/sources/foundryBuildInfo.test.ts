/**
 * What forge 1.7.1 writes to `out/build-info/*.json` (`forge build --build-info`, solc from npm
 * behind a wrapper) is accepted as it is: the contracts it compiled, with their sources' text and
 * function table, and the same code hashes as the standard-JSON pair compiled directly.
 */
import { describe, expect, it } from 'vitest'
import { contractsOfBuildInfo } from '../../../engine/sources/buildInfo.js'
import { forgeBuildInfo, requireForge } from '../../support/forgeBuild.js'
import { compileStandard } from '../../support/solcStandard.js'
import { VAULT_SOURCES } from './vaultSources.js'

describe.runIf(requireForge())("Foundry's build-info", () => {
  it('reads the contracts forge compiled', async () => {
    const infos = await forgeBuildInfo(VAULT_SOURCES)
    expect(infos).toHaveLength(1)
    const info = infos[0] as Record<string, unknown>
    // the form forge writes: the standard-JSON pair with Foundry's own fields beside it
    expect(Object.keys(info)).toEqual(expect.arrayContaining(['id', 'source_id_to_path', 'input', 'output', 'solcVersion']))
    const contracts = contractsOfBuildInfo(info)
    expect(contracts.map((c) => c.name).sort()).toEqual(['Factory', 'Math', 'Vault'])
    const vault = contracts.find((c) => c.name === 'Vault')!
    expect(vault.file).toBe('src/Vault.sol')
    expect(Object.values(vault.sources).find((s) => s.path === 'src/Vault.sol')?.content).toBe(VAULT_SOURCES['src/Vault.sol'])
    expect(vault.functions.find((f) => f.name === '_credit')?.parameters).toEqual(['(address,uint256)', 'uint8'])
    // forge compiles for its own default EVM version; the same settings directly give the same hashes
    const settings = (info.input as { settings: Record<string, unknown> }).settings
    const direct = contractsOfBuildInfo(compileStandard(VAULT_SOURCES, { evmVersion: settings.evmVersion }))
    expect(direct.find((c) => c.name === 'Vault')?.runtimeCodeHash).toBe(vault.runtimeCodeHash)
  }, 120_000)
})
