/// The logger is in Simulator's public interface (`Fleet`, `RunControl`, `Verifier` take one),
/// so whoever imports Simulator gets Logging with it, as the logger's own files had it before it
/// became a module below Reactor.
@_exported import Logging
