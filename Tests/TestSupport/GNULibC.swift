import Glibc

/// GNU extensions of glibc that Swift's `Glibc` module does not import (it is built without
/// `_GNU_SOURCE`), looked up at run time.
enum GNULibC {
    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    private static func symbol<T>(_ name: String, as type: T.Type) -> T? {
        guard let address = dlsym(nil, name) else { return nil }
        return unsafeBitCast(address, to: type)
    }

    /// `pipe2(fds, O_CLOEXEC)`: both ends close-on-exec from birth, so a child spawned by another
    /// thread at the same moment cannot inherit them (which would delay end-of-file forever).
    /// Falls back to `pipe` + `fcntl` if the symbol is missing.
    static func closeOnExecPipe(_ fds: inout [Int32]) -> Bool {
        if let pipe2 = symbol("pipe2", as: Pipe2.self) {
            return fds.withUnsafeMutableBufferPointer { pipe2($0.baseAddress!, O_CLOEXEC) } == 0
        }
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// Asks the spawn to close every descriptor from `lowest` up in the child (glibc ≥ 2.34).
    /// Descriptors opened by other code without `O_CLOEXEC` (libmosquitto sockets, for one)
    /// would otherwise leak into the child. Without the symbol this is a no-op.
    static func addCloseFrom(_ actions: inout posix_spawn_file_actions_t, lowest: Int32) {
        if let addCloseFrom = symbol("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self) {
            _ = addCloseFrom(&actions, lowest)
        }
    }
}
