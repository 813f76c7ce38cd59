"""Analysis of simulation results: reads Parquet only (never the engines) and writes HTML, Markdown and PNG.

Entry point: `reports.build.build_report(results_dir, out_dir)`.
"""
