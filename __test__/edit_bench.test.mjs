// The edit-robustness benchmark (bench/edit_robustness.mjs) on a small corpus: edit_file must
// never edit a wrong place (results compared byte for byte), must refuse every ambiguous
// request (overlapping places too), and must land at least what an exact-match-only matcher lands. The numbers of the full run are in bench/README.md.
import { test } from "./harness.mjs";
import assert from "node:assert/strict";
import { corpus, run, PERTURBATIONS } from "../bench/edit_robustness.mjs";

test("edit-robustness corpus: no wrong edit, every perturbation landed, ambiguity refused", async () => {
  const requests = corpus(180, 5);
  assert.equal(requests.length, 180);
  const results = await run(requests);
  const wrong = results.filter((r) => r.ours === "wrong");
  assert.deepEqual(wrong, [], "edit_file changed a file into something else than the right answer");
  for (const p of PERTURBATIONS) {
    const rs = results.filter((r) => r.perturbation === p);
    assert.ok(rs.length >= 20, p);
    const right = rs.filter((r) => r.ours === "right").length;
    const baseline = rs.filter((r) => r.theirs === "right").length;
    assert.ok(right >= baseline, `${p}: ${right} < exact-only ${baseline}`);
    assert.ok(right / rs.length >= 0.9, `${p}: only ${right}/${rs.length} right`);
  }
  for (const r of results.filter((x) => x.perturbation === "occurs_twice" || x.perturbation === "overlaps_itself")) assert.equal(r.code, "AMBIGUOUS");
  // the perturbed requests are ones an exact matcher cannot land
  assert.equal(results.filter((r) => r.perturbation === "crlf_file_lf_model" && r.theirs === "right").length, 0);
});
