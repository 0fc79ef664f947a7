// TeX to MathML with the MathJax that sphinx-mathjax-offline installs (node, no browser).
// Usage: node tex2mml.js MATHJAX_DIR < [[tex, display], ...] > [mathml, ...]
const dir = process.argv[2];
let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  require(dir + '/node-main.js').init({
    loader: {load: ['input/tex-base', '[tex]/ams', '[tex]/newcommand', '[tex]/noundefined', '[tex]/boldsymbol']},
    tex: {packages: ['base', 'ams', 'newcommand', 'noundefined', 'boldsymbol']},
  }).then((MathJax) => {
    const out = JSON.parse(input).map(([tex, display]) => {
      try {
        return MathJax.tex2mml(tex, {display});
      } catch (e) {
        return {error: e.message};
      }
    });
    process.stdout.write(JSON.stringify(out));
  }).catch((e) => { console.error(e); process.exit(1); });
});
