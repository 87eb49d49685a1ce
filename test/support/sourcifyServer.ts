/**
 * A Sourcify-compatible test server (node:http): APIv2 `GET /v2/contract/{chainId}/{address}`
 * answering documents made from real solc output, as Sourcify serves them with `fields=all`
 * (its standard-JSON output carries no ASTs), 404 `not_found` for any other address. It counts the
 * requests it was sent, and can be told to fail (HTTP 500) or to hang (never answer).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { StandardJsonPair } from './solcStandard.js'

export interface SourcifyServer {
  url: string
  /** requests by path, e.g. `/v2/contract/1/0xabc…?fields=all` */
  requests: string[]
  mode: 'serve' | 'fail' | 'hang'
  close(): Promise<void>
}

/** the APIv2 document of contract `file:name` of a compilation, deployed at `address` with `onchain` code */
export function apiV2Document(
  build: StandardJsonPair,
  file: string,
  name: string,
  chainId: number,
  address: string,
  onchain: { runtime: string; creation?: string },
) {
  const contract = build.output.contracts[file]![name]
  const sourceIds = Object.fromEntries(Object.entries(build.output.sources as Record<string, { id: number }>).map(([p, s]) => [p, { id: s.id }]))
  const { bytecode, deployedBytecode } = contract.evm
  return {
    match: 'match',
    creationMatch: 'match',
    runtimeMatch: 'match',
    chainId: String(chainId),
    address,
    verifiedAt: '2026-01-01T00:00:00Z',
    compilation: {
      language: 'Solidity',
      compiler: 'solc',
      compilerVersion: build.solcVersion,
      compilerSettings: build.input.settings,
      name,
      fullyQualifiedName: `${file}:${name}`,
    },
    abi: contract.abi,
    storageLayout: contract.storageLayout ?? null,
    sources: Object.fromEntries(Object.entries(build.input.sources as Record<string, { content: string }>).map(([p, s]) => [p, { content: s.content }])),
    stdJsonInput: build.input,
    stdJsonOutput: { sources: sourceIds, contracts: { [file]: { [name]: { abi: contract.abi, evm: { bytecode, deployedBytecode } } } } },
    creationBytecode: {
      onchainBytecode: onchain.creation ?? `0x${bytecode.object}`,
      recompiledBytecode: `0x${bytecode.object}`,
      sourceMap: bytecode.sourceMap,
      linkReferences: bytecode.linkReferences,
    },
    runtimeBytecode: {
      onchainBytecode: onchain.runtime,
      recompiledBytecode: `0x${deployedBytecode.object}`,
      sourceMap: deployedBytecode.sourceMap,
      linkReferences: deployedBytecode.linkReferences,
      immutableReferences: deployedBytecode.immutableReferences,
    },
  }
}

/** serves `documents` by `${chainId}:${address lower-case}` */
export async function startSourcifyServer(documents: Record<string, unknown>): Promise<SourcifyServer> {
  const hanging = new Set<ServerResponse>()
  const state: SourcifyServer = { url: '', requests: [], mode: 'serve', close: async () => undefined }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    state.requests.push(req.url ?? '')
    if (state.mode === 'hang') return void hanging.add(res)
    if (state.mode === 'fail') return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"internal"}')
    const m = /^\/v2\/contract\/(\d+)\/(0x[0-9a-fA-F]{40})\?fields=all$/.exec(req.url ?? '')
    const doc = m ? documents[`${m[1]}:${m[2]!.toLowerCase()}`] : undefined
    if (!doc)
      return void res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ customCode: 'not_found', message: 'not verified', errorId: 'x' }))
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  state.close = async () => {
    for (const res of hanging) res.destroy()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return state
}
