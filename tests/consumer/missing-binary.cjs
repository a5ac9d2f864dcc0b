// Run where the package was installed without its optional platform package: loading it must
// fail with the clear error (the platform found, the package expected, how to build).
const assert = require("node:assert/strict");

const platform = `${process.platform}-${process.arch}-${process.argv[2] ?? "gnu"}`;
try {
  require("agent-tools-native");
  assert.fail("agent-tools-native loaded without its platform package");
} catch (error) {
  assert.equal(error.name, "NativeBindingError", String(error.stack));
  assert.equal(error.code, "NATIVE_BINDING_MISSING");
  assert.equal(error.expectedPackage, `agent-tools-native-${platform}`);
  assert.match(error.message, new RegExp(`${process.platform} ${process.arch}`));
  assert.match(error.message, /Prebuilt platforms: linux-x64-gnu, /);
  assert.match(error.message, /npm run build/);
  console.log(`missing binary (${platform}): clear error passed\n  ${error.message.split("\n")[0]}`);
}
