// What a results file says of the machine that measured: Node, the OS and the CPUs, read once when
// the file is made, so that a report read elsewhere names the machine whose figures it shows.
import { arch, cpus, platform, release } from 'node:os';

export function hostFacts(): { node: string; os: string; arch: string; cpus: number; cpuModel: string } {
  const cpu = cpus();
  return {
    node: process.version,
    os: `${platform()} ${release()}`,
    arch: arch(),
    cpus: cpu.length,
    cpuModel: cpu[0]?.model ?? 'unknown',
  };
}
