/**
 * A real Anvil holding one probe contract (reads, writes with refunds, every kind of revert, a
 * gas burner, a stipend forward, block fields), for the JSON-RPC endpoint's differential and
 * real-client tests: the service forks this Anvil, and the same request goes to both.
 */
import { encodeFunctionData, type Abi, type Address, type Hex } from 'viem'
import { compile, type CompiledContract } from '../../support/solc.js'
import { DEV_ACCOUNTS, startAnvil, type AnvilInstance } from '../../support/anvil.js'

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract RpcProbe {
  uint256 public value = 7;
  mapping(uint256 => uint256) public slots;
  error Custom(uint256 code, address who);
  event Set(uint256 indexed key, uint256 value);
  function get() external view returns (uint256) { return value; }
  function set(uint256 v) external { value = v; emit Set(0, v); }
  function fill(uint256 n) external { for (uint256 i = 0; i < n; i++) slots[i] = i + 1; }
  function clear(uint256 n) external { for (uint256 i = 0; i < n; i++) slots[i] = 0; }
  function failWith(string calldata why) external pure { revert(why); }
  function failCustom() external view { revert Custom(42, msg.sender); }
  function failEmpty() external pure { revert(); }
  function divide(uint256 a, uint256 b) external pure returns (uint256) { return a / b; }
  function burn(uint256 n) external pure returns (uint256 acc) { unchecked { for (uint256 i = 0; i < n; i++) acc += uint256(keccak256(abi.encode(acc, i))); } }
  function pay() external payable returns (uint256) { return msg.value; }
  function forward(address to) external payable { (bool ok,) = to.call{value: msg.value, gas: 2300}(""); require(ok, "forward failed"); }
  function selfBalance() external view returns (uint256) { return address(this).balance; }
  function blockInfo() external view returns (uint256, uint256, address, uint256) { return (block.number, block.timestamp, block.coinbase, block.basefee); }
}`

export interface ProbeChain {
  anvil: AnvilInstance
  probe: Address
  abi: Abi
  artifact: CompiledContract
  /** calldata of a probe function */
  data(fn: string, args?: unknown[]): Hex
  /** a mined probe transaction (set(11)) to replay */
  minedTx: Hex
  stop(): Promise<void>
}

export const SENDER: Address = DEV_ACCOUNTS[0]
export const OTHER: Address = DEV_ACCOUNTS[1]

export async function startProbeChain(): Promise<ProbeChain> {
  const { RpcProbe } = compile({ 'RpcProbe.sol': SOURCE })
  const artifact = RpcProbe!
  const anvil = await startAnvil()
  // Anvil mines on its own schedule: on a loaded machine the receipt may lag the send a little
  const receipt = async (hash: Hex) => {
    for (let tries = 0; ; tries++) {
      const r = await anvil.rpc<{ contractAddress: Address; status: Hex } | null>('eth_getTransactionReceipt', [hash])
      if (r) return r
      if (tries > 200) throw new Error(`Anvil mined no receipt for ${hash}`)
      await new Promise((done) => setTimeout(done, 50))
    }
  }
  const deployed = await receipt(await anvil.rpc<Hex>('eth_sendTransaction', [{ from: SENDER, data: artifact.bytecode, gas: '0x1000000' }]))
  const probe = deployed.contractAddress.toLowerCase() as Address
  const data = (fn: string, args: unknown[] = []) => encodeFunctionData({ abi: artifact.abi, functionName: fn, args } as never)
  await receipt(await anvil.rpc<Hex>('eth_sendTransaction', [{ from: SENDER, to: probe, data: data('fill', [3n]), gas: '0x100000' }]))
  const minedTx = await anvil.rpc<Hex>('eth_sendTransaction', [{ from: SENDER, to: probe, data: data('set', [11n]), gas: '0x100000' }])
  if ((await receipt(minedTx)).status !== '0x1') throw new Error('probe set(11) failed on Anvil')
  // a few empty blocks on top, so the fork's "latest" is not the block the probe was set up in
  await anvil.rpc('anvil_mine', ['0x2'])
  return { anvil, probe, abi: artifact.abi, artifact, data, minedTx, stop: () => anvil.stop() }
}
