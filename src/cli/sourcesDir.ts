/**
 * `--sources <dir>`: a project's compiler output registered with the engine of this process, so
 * the tree names its contracts, their internal functions and their errors — Foundry's
 * `out/build-info/*.json`, Hardhat's `artifacts/build-info/*.json`, or such a `build-info` folder
 * itself (forge writes build-info with `forge build --build-info`, or `build_info = true`).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { ON_CHAIN, type Engine } from '../../engine/types.js'
import { engineMessage } from './engineMessage.js'
import { CliError } from './usage.js'

const BUILD_INFO_DIRS = ['out/build-info', 'artifacts/build-info']

/** the build-info files of `dir`: the first of its build-info folders that holds any */
export function buildInfoFiles(dir: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new CliError(`--sources: no folder ${dir}`)
  for (const sub of basename(dir) === 'build-info' ? ['.'] : BUILD_INFO_DIRS) {
    const folder = join(dir, sub)
    if (!existsSync(folder) || !statSync(folder).isDirectory()) continue
    const files = readdirSync(folder)
      .filter((f) => f.endsWith('.json'))
      .sort()
    if (files.length > 0) return files.map((f) => join(folder, f))
  }
  throw new CliError(`--sources: no build-info in ${dir} (out/build-info or artifacts/build-info: forge build --build-info)`)
}

/** registers every build-info of `dir` with the engine; the number of contracts registered */
export async function registerSourcesDir(engine: Engine, dir: string): Promise<number> {
  let contracts = 0
  for (const file of buildInfoFiles(dir)) {
    let buildInfo: unknown
    try {
      buildInfo = JSON.parse(readFileSync(file, 'utf8'))
    } catch (e) {
      throw new CliError(`--sources: ${file} is not JSON: ${(e as Error).message}`)
    }
    const registered = await engine.registerSources(ON_CHAIN, buildInfo).catch((e: unknown) => {
      throw new CliError(`--sources: ${file}: ${engineMessage(e)}`)
    })
    contracts += registered.length
  }
  return contracts
}
