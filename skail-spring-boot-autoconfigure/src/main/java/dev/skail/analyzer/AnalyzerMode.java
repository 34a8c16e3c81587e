package dev.skail.analyzer;

/** What start-up does with the determinism analyzer's findings. */
public enum AnalyzerMode {

    /** Start-up fails, with a report of every finding. */
    FAIL,

    /** Each finding is logged as a warning; start-up goes on. */
    WARN,

    /** The analyzer does not run. */
    OFF
}
