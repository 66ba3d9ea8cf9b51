/**
 * Small file systems the hostile SQLite tests make for themselves (a tmpfs, an ext4 loop file),
 * so that a full disk or a volume turned read-only is real, not simulated. Needs root (mount);
 * where mounting is refused the tests skip and say why.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface Mount {
  dir: string
  /** Unmounts (lazily when still busy) and removes what the mount made; safe to call twice. */
  cleanup: () => void
}

const run = (command: string, args: string[]) =>
  execFileSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' })

const failure = (error: unknown) =>
  String((error as { stderr?: string }).stderr || (error as Error).message).trim()

function unmount(dir: string) {
  try {
    run('umount', [dir])
  } catch {
    try {
      run('umount', ['-l', dir])
    } catch {
      // not mounted (any more)
    }
  }
}

/**
 * Mounts a tmpfs of `sizeMb` MiB on a fresh directory.
 * @returns the mount, or why it could not be made
 */
export function mountTmpfs(sizeMb: number): Mount | string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-todos-tmpfs-'))
  try {
    run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0755`, 'tmpfs', dir])
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    return `mount -t tmpfs failed: ${failure(error)}`
  }
  let done = false
  return {
    dir,
    cleanup() {
      if (done) return
      done = true
      unmount(dir)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

export interface LoopMount extends Mount {
  /** The loop device's name under /sys/fs/ext4 (e.g. `loop0`). */
  device: string
  /**
   * Makes the kernel report an ext4 error on this file system: mounted with
   * `errors=remount-ro`, it turns read-only under the open files, as a failing disk does.
   */
  triggerError: () => void
}

/**
 * Makes an ext4 file system in a loop file of `sizeMb` MiB, mounted with `errors=remount-ro`.
 * @returns the mount, or why it could not be made
 */
export function mountExt4Loop(sizeMb: number): LoopMount | string {
  const base = mkdtempSync(join(tmpdir(), 'agent-todos-loop-'))
  const image = join(base, 'disk.img')
  const dir = join(base, 'mnt')
  let device: string
  try {
    run('truncate', ['-s', `${sizeMb}M`, image])
    run('mkfs.ext4', ['-q', '-F', image])
    run('mkdir', [dir])
    device = run('losetup', ['--find', '--show', image]).trim()
  } catch (error) {
    rmSync(base, { recursive: true, force: true })
    return `making an ext4 loop file failed: ${failure(error)}`
  }
  const drop = () => {
    try {
      run('losetup', ['-d', device])
    } catch {
      // detached already
    }
    rmSync(base, { recursive: true, force: true })
  }
  try {
    run('mount', ['-t', 'ext4', '-o', 'errors=remount-ro', device, dir])
  } catch (error) {
    drop()
    return `mount -o loop failed: ${failure(error)}`
  }
  const name = device.replace('/dev/', '')
  let done = false
  return {
    dir,
    device: name,
    triggerError() {
      run('sh', ['-c', `echo 1 > /sys/fs/ext4/${name}/trigger_fs_error`])
    },
    cleanup() {
      if (done) return
      done = true
      unmount(dir)
      drop()
    },
  }
}

/**
 * Whether the file system of `dir` refuses writes now (EROFS). Asked by trying: since Linux 6.x
 * an ext4 turned read-only by an error still says `rw` in its options (plus `emergency_ro`).
 */
export function isReadOnly(dir: string): boolean {
  const probe = join(dir, '.read-only-probe')
  try {
    writeFileSync(probe, '')
    rmSync(probe)
    return false
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EROFS') return true
    throw error
  }
}
