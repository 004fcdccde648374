/**
 * A realistic blog post as sites serve it: a navigation bar, ad slots, a sidebar, the article (headings, paragraphs,
 * a table, a code block, an image), comments and a footer, with its metadata (description, canonical, Open Graph,
 * Twitter card, icons, JSON-LD). A script adds a paragraph to the article after load, and one writes an ad. Used
 * by the content formats' specs (markdown must hold the article and none of the chrome).
 */
const ARTICLE_PARAGRAPHS = [
  'Connection pools are the quiet workhorses of every web service. When they are sized well, nobody notices them; when they are not, latency climbs and requests pile up behind a handful of busy connections.',
  'In this post we measure three pool sizes against the same workload and explain why the smallest pool that keeps the database busy is usually the right one. The numbers come from a week of production traffic replayed against a staging cluster.',
  'The surprising result is that doubling the pool did not double throughput: the database spent the extra connections waiting on locks, and the tail latency got worse, not better.',
];

export const BLOG_PAGE = `<!doctype html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<title>Sizing connection pools | Example Engineering Blog</title>
<meta name="description" content="How we sized our database connection pools, with measurements.">
<link rel="canonical" href="/blog/sizing-connection-pools">
<link rel="icon" href="/favicon.ico" sizes="32x32">
<link rel="apple-touch-icon" href="/apple-touch-icon.png" sizes="180x180">
<meta property="og:title" content="Sizing connection pools">
<meta property="og:type" content="article">
<meta property="og:image" content="https://cdn.example.com/pools-1.png">
<meta property="og:image" content="https://cdn.example.com/pools-2.png">
<meta property="og:site_name" content="Example Engineering Blog">
<meta name="twitter:card" content="summary_large_image">
<meta name="twitter:site" content="@exampleeng">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"BlogPosting","headline":"Sizing connection pools","author":{"@type":"Person","name":"Ada Lovelace"},"datePublished":"2026-11-02"}</script>
<style>body{font:16px sans-serif;margin:0} nav,footer{background:#222;color:#fff;padding:8px} .ad{background:#fe0;padding:20px} aside{float:right;width:200px}</style>
</head>
<body>
<nav class="site-nav"><a href="/">Home</a> <a href="/blog">Blog</a> <a href="/careers">Careers</a> <a href="/about">About us</a> <a href="/subscribe">Subscribe to our newsletter</a></nav>
<div class="ad ad-banner" id="top-ad">SPONSORED: Buy CloudWidgets today, 50% off for the first month!</div>
<aside class="sidebar"><h3>Popular posts</h3><ul><li><a href="/blog/a">Why we love queues</a></li><li><a href="/blog/b">Ten YAML tricks</a></li></ul>
<div class="ad">ADVERTISEMENT: Learn Kubernetes in 24 hours</div></aside>
<main>
<article class="post">
<h1>Sizing connection pools</h1>
<p class="byline">By Ada Lovelace, 2 November 2026</p>
${ARTICLE_PARAGRAPHS.map((p) => `<p>${p}</p>`).join('\n')}
<h2>The measurements</h2>
<p>Each configuration ran for an hour at the same request rate. Throughput is requests per second; latency is the 99th percentile.</p>
<table>
<thead><tr><th>Pool size</th><th>Throughput</th><th>p99 latency</th></tr></thead>
<tbody>
<tr><td>10</td><td>1450</td><td>38 ms</td></tr>
<tr><td>20</td><td>1510</td><td>41 ms</td></tr>
<tr><td>40</td><td>1490</td><td>97 ms</td></tr>
</tbody>
</table>
<h2>The configuration</h2>
<p>This is the pool configuration we ship now, after the measurements above:</p>
<pre><code class="language-ts">const pool = new Pool({
  max: 20,
  idleTimeoutMillis: 30_000,
});</code></pre>
<p>We will revisit these numbers when the next database upgrade lands, and publish the comparison here.</p>
</article>
</main>
<section class="comments" id="comments"><h3>3 comments</h3>
<div class="comment"><b>troll42</b> said: first!!! check out my channel</div>
<div class="comment"><b>bob</b> said: great post, what about pgbouncer?</div>
</section>
<footer>© 2026 Example Inc. · <a href="/privacy">Privacy</a> · <a href="/cookies">Cookie settings</a></footer>
<script>
  const p = document.createElement('p');
  p.textContent = 'Update: written by a script after load, so only a browser sees it.';
  document.querySelector('article').appendChild(p);
  document.getElementById('top-ad').setAttribute('data-filled', 'yes');
</script>
</body>
</html>`;
