"""The style and the script every interactive figure carries, the same for all of them.

:class:`~labkit.viz.html.figure.HtmlFigure` writes :data:`STYLE` and :data:`SCRIPT` into its
HTML; the book's build keeps the first copy of a page. The script (ES5, no external code) unpacks
a figure's gzip+base64 data and draws its cells, once per figure id (``window.lkfInit``).

>>> from labkit.viz.html.assets import SCRIPT, STYLE
>>> STYLE.startswith('<style class="lkf-css">'), SCRIPT.startswith("window.lkfInit=")
(True, True)
"""

__all__ = ["STYLE", "SCRIPT"]


# Shared by every figure of a page: a page that shows several figures needs one copy of each
# (the book's build keeps the first); a notebook output carries its own, so it works alone.
STYLE = """<style class="lkf-css">
.lkf{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0.5em 0 1em 0;color:#222;max-width:100%;min-width:0}
.lkf>.lkf-title{font-weight:600;font-size:1em;text-align:left;color:#222;padding:0;margin:0 0 0.3em 0}
.lkf-ctl{display:flex;flex-wrap:wrap;gap:0.3em 0.6em;align-items:center;margin:0.2em 0}
.lkf-ctl button{font:inherit;font-size:0.85em;min-height:28px;min-width:28px;padding:0.1em 0.6em;border:1px solid #888;border-radius:3px;background:#f5f5f5;color:#222;cursor:pointer}
.lkf-ctl button[aria-pressed=true]{background:#0072B2;color:#fff;border-color:#0072B2}
.lkf-ctl label{font-size:0.85em;cursor:pointer;min-height:28px;display:inline-flex;align-items:center;gap:0.2em}
.lkf-ctl input[type=range]{min-height:28px}
.lkf-ctl .lkf-cl{font-size:0.85em;color:#555}
.lkf-box{max-width:100%;overflow-x:auto;overflow-y:hidden;-webkit-overflow-scrolling:touch;touch-action:pan-x pan-y pinch-zoom}
.lkf-pan .lkf-panl{font-size:0.85em;color:#555;font-variant-numeric:tabular-nums}
.lkf svg{display:block;max-width:none;height:auto;user-select:none;overflow:visible}
.lkf [data-k]{cursor:pointer;outline:none}
.lkf rect[data-k],.lkf [data-k]>rect{stroke:#444;stroke-width:0.6}
.lkf .lkf-f rect[data-k],.lkf .lkf-f [data-k]>rect{stroke:#aaa;stroke-width:0.4}
.lkf [data-k] text{pointer-events:none;text-anchor:middle;dominant-baseline:central}
.lkf .lkf-rel>rect,.lkf rect.lkf-rel{stroke:#000;stroke-width:2.5;stroke-dasharray:4 2}
.lkf .lkf-sel>rect,.lkf rect.lkf-sel{stroke:#D55E00;stroke-width:3.5;stroke-dasharray:none}
.lkf [data-k]:focus-visible>rect,.lkf rect[data-k]:focus-visible{stroke:#000;stroke-width:4;stroke-dasharray:none}
.lkf .lkf-hide{display:none}
.lkf-panel{font-size:0.9em;border-left:4px solid #0072B2;background:#f4f8fb;color:#222;padding:0.35em 0.7em;margin-top:0.3em;min-height:2.6em;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.lkf-panel .lkf-l{color:#555;margin-right:0.4em}
.lkf-panel>div{display:inline-block;margin-right:1.2em}
.lkfs{margin:0.5em 0 1em 0;max-width:100%;min-width:0}
.lkfs-box{max-width:100%;overflow-x:auto;overflow-y:hidden;-webkit-overflow-scrolling:touch}
.lkfs-box:focus-visible{outline:2px solid #0072B2;outline-offset:2px}
.lkfs svg{display:block;overflow:visible;width:100%;max-width:var(--w);min-width:var(--d);height:auto;font-family:"DejaVu Sans",Verdana,system-ui,sans-serif}
.lkfs image{image-rendering:pixelated}
@media (max-width:720px){.lkfs svg{min-width:var(--p)}}
</style>"""

# The figure code, defined once per page (``window.lkfInit``) and run once per figure id.
# Cells are drawn from the compact data (the page stays small); ES5 only, no external code.
SCRIPT = r"""window.lkfInit=window.lkfInit||function(id){
var R=document.getElementById(id);if(!R||R.getAttribute("data-init"))return;R.setAttribute("data-init","1");
var P=R.querySelector(".lkf-panel"),T=R.querySelector("script.lkf-data").textContent.replace(/\s/g,"");
if(!window.DecompressionStream||!window.Response){P.textContent="This browser cannot unpack the figure (it needs DecompressionStream).";return;}
var bin=atob(T),u=new Uint8Array(bin.length);for(var b=0;b<bin.length;b++)u[b]=bin.charCodeAt(b);
new Response(new Blob([u]).stream().pipeThrough(new DecompressionStream("gzip"))).text().then(function(s){go(R,P,JSON.parse(s));});
function go(R,P,D){R.lkfData=D;
var svg=R.querySelector("svg"),box=R.querySelector(".lkf-box"),NS="http://www.w3.org/2000/svg";
var S=D.state.slice(),rel=0,pin=D.sel,byK={},marked=[],i,tab=null;
function el(n,a){var e=document.createElementNS(NS,n);for(var q in a)e.setAttribute(q,a[q]);return e;}
svg.insertAdjacentHTML("beforeend",D.svg);
var G=svg.querySelectorAll("g[data-r]");
for(i=0;i<G.length;i++){var ab=G[i].getAttribute("data-r").split("-"),F=document.createDocumentFragment();
 for(var k=+ab[0];k<=+ab[1];k++){var c=D.cells[k],r=el("rect",{x:c[0],y:c[1],width:c[2],height:c[3],fill:D.str[c[4]]});
  if(c.length>5){var g=el("g",{"data-k":k}),L=D.str[c[5]].split("\n"),fs=c[6],y0=c[1]+c[3]/2-(L.length-1)*fs*0.55;g.appendChild(r);
   for(var j=0;j<L.length;j++){var t=el("text",{x:c[0]+c[2]/2,y:y0+j*fs*1.1});if(fs!==10)t.setAttribute("font-size",fs);
    if(c.length>7)t.setAttribute("fill",D.str[c[7]]);t.textContent=L[j];g.appendChild(t);}F.appendChild(g);}
  else{r.setAttribute("data-k",k);F.appendChild(r);}}
 G[i].appendChild(F);}
var cs=svg.querySelectorAll("[data-k]");for(i=0;i<cs.length;i++){var kk=+cs[i].getAttribute("data-k");(byK[kk]=byK[kk]||[]).push(cs[i]);}
var st=R.querySelectorAll("[data-s]");
function ok(w){if(w===null)return true;var s=w.split(" ");for(var j=0;j<s.length;j++){var a=s[j].split(":");if(S[+a[0]]!=+a[1])return false;}return true;}
function isVis(k){return D.when===null||ok(D.whens[D.when[k]]);}
function lk(k){var v=D.link[k];return v===undefined?null:v;}
function show(k){while(P.firstChild)P.removeChild(P.firstChild);
 if(k==null||!isVis(k)){P.appendChild(document.createTextNode(D.hint));return;}
 var row=D.info[k];for(var j=0;j<row.length;j++){if(row[j]<0)continue;var d=document.createElement("div"),l=document.createElement("span");
 l.className="lkf-l";l.appendChild(document.createTextNode(D.fields[j]+": "));d.appendChild(l);d.appendChild(document.createTextNode(String(D.vals[row[j]])));P.appendChild(d);}}
function add(k,c){var e=byK[k]||[];for(var j=0;j<e.length;j++){e[j].classList.add(c);marked.push(e[j]);}}
function mark(k){for(var j=0;j<marked.length;j++)marked[j].classList.remove("lkf-sel","lkf-rel");marked=[];
 if(k==null||!isVis(k))return;var n=D.info.length,L=lk(k);
 if(D.rels.length){var key=D.keys[k][rel];if(key>=0)for(j=0;j<n;j++)if(D.keys[j][rel]===key&&isVis(j))add(j,"lkf-rel");}
 for(j=0;j<n;j++)if(j===k||(L!==null&&meet(L,lk(j))&&isVis(j)))add(j,"lkf-sel");}
function meet(a,b){if(b===null)return false;for(var p=0;p<a.length;p++)for(var q=0;q<b.length;q++)if(a[p]===b[q])return true;return false;}
function focus(k){show(k);mark(k);}
function first(){for(var j=0;j<D.cells.length;j++)if(isVis(j))return j;return null;}
function setTab(k){var t=k==null?null:byK[k][0];if(tab!==null&&tab!==t)tab.removeAttribute("tabindex");tab=t;if(t)t.setAttribute("tabindex","0");}
function apply(){for(var j=0;j<st.length;j++)st[j].classList.toggle("lkf-hide",!ok(st[j].getAttribute("data-s")));
 var b=R.querySelectorAll("button[data-o]");for(j=0;j<b.length;j++)b[j].setAttribute("aria-pressed",S[+b[j].getAttribute("data-c")]==+b[j].getAttribute("data-o")?"true":"false");
 var t=R.querySelectorAll(".lkf-stepl");for(j=0;j<t.length;j++){var c=+t[j].getAttribute("data-c");t[j].textContent=D.ctl[c][S[c]];}
 var g=R.querySelectorAll("input[type=range][data-c]");for(j=0;j<g.length;j++)g[j].value=S[+g[j].getAttribute("data-c")];
 if(pin!=null&&!isVis(pin)&&lk(pin)!==null){for(j=0;j<D.info.length;j++)if(isVis(j)&&meet(lk(pin),lk(j))){pin=j;break;}}
 setTab(pin!=null&&isVis(pin)?pin:first());focus(pin);}
function cellOf(e){var t=e.target;while(t&&t!==R){if(t.getAttribute&&t.getAttribute("data-k")!==null)return +t.getAttribute("data-k");t=t.parentNode;}return null;}
function pick(k){pin=k;setTab(k);focus(k);}
svg.addEventListener("click",function(e){var k=cellOf(e);if(k!==null){pick(k);if(tab.focus)tab.focus({preventScroll:true});}});
svg.addEventListener("mouseover",function(e){var k=cellOf(e);if(k!==null)focus(k);});
svg.addEventListener("mouseleave",function(){focus(pin);});
svg.addEventListener("focusin",function(e){var k=cellOf(e);if(k!==null&&k!==pin)pick(k);});
var DIR={ArrowRight:[1,0],ArrowLeft:[-1,0],ArrowDown:[0,1],ArrowUp:[0,-1]};
svg.addEventListener("keydown",function(e){var k=cellOf(e),d=DIR[e.key];if(k===null)return;
 if(e.key==="Enter"||e.key===" "){pick(k);e.preventDefault();return;}if(!d)return;
 var a=D.cells[k],ax=a[0]+a[2]/2,ay=a[1]+a[3]/2,best=null,bs=Infinity;
 for(var j=0;j<D.cells.length;j++){if(j===k||!isVis(j))continue;var b=D.cells[j],dx=b[0]+b[2]/2-ax,dy=b[1]+b[3]/2-ay,
  along=dx*d[0]+dy*d[1],across=Math.abs(dx*d[1]+dy*d[0]);if(along<=0.5)continue;var sc=along+3*across;if(sc<bs){bs=sc;best=j;}}
 e.preventDefault();if(best!==null){pick(best);tab.focus();}});
var PN=R.querySelector(".lkf-pan"),PL=R.querySelector(".lkf-panl");
function parts(){var cw=box.clientWidth||1,n=Math.max(1,Math.ceil(box.scrollWidth/cw-0.02));
 var a=Math.round(box.scrollLeft/cw*100)/100,i=Math.min(n,Math.floor(a+0.5)+1);return [i,n];}
function panShow(){if(!PN)return;var p=parts();PN.style.display=p[1]>1?"":"none";
 PL.textContent="part "+p[0]+" of "+p[1];
 var b=PN.querySelectorAll("button");b[0].disabled=box.scrollLeft<=1;b[1].disabled=box.scrollLeft+box.clientWidth>=box.scrollWidth-1;}
function size(){var W=D.size[0],cw=box.clientWidth||W,f=Math.min(1,cw/W),narrow=window.matchMedia("(max-width: 720px)").matches;
 var z=Math.max(narrow?D.size[2]:D.size[1],f);svg.style.width=(W*z)+"px";panShow();}
if(PN)PN.addEventListener("click",function(e){var t=e.target.closest("button");if(!t)return;
 box.scrollBy({left:(+t.getAttribute("data-pan"))*Math.max(40,box.clientWidth*0.85),behavior:"smooth"});});
box.addEventListener("scroll",panShow);
window.addEventListener("resize",size);
R.addEventListener("click",function(e){var t=e.target;if(t.tagName!=="BUTTON"||!t.hasAttribute("data-c"))return;var c=+t.getAttribute("data-c");
 if(t.hasAttribute("data-o"))S[c]=+t.getAttribute("data-o");else{var n=D.ctl[c].length;S[c]=(S[c]+(+t.getAttribute("data-d"))+n)%n;}apply();});
R.addEventListener("input",function(e){var t=e.target;if(t.type==="range"){S[+t.getAttribute("data-c")]=+t.value;apply();}});
R.addEventListener("change",function(e){var t=e.target;if(t.type==="radio"){rel=+t.value;focus(pin);}});
size();apply();R.setAttribute("data-ready","1");}};"""
