throw new Error('cbor-extract native acceleration is not installed (see vendor/cbor-extract-absent)');
