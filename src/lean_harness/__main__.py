from lean_harness.cli import main

raise SystemExit(main())
