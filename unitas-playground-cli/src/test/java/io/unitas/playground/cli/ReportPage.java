package io.unitas.playground.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** A drills' report read back: its table's rows and, per chart, the numbers each line draws. */
record ReportPage(List<List<String>> rows, List<Chart> charts) {

    /** One chart: its drill, and per series ("served by cn", "errors") the value drawn at each second. */
    record Chart(String scenario, String mode, Map<String, List<Long>> series) {
        /** Every value of every series added up: each request the drill sent lands in exactly one. */
        long total() {
            return series.values().stream().flatMap(List::stream).mapToLong(Long::longValue).sum();
        }
    }

    static ReportPage read(Path file) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        Document page = f.newDocumentBuilder().parse(file.toFile());
        List<List<String>> rows = new ArrayList<>();
        NodeList trs = page.getElementsByTagName("tr");
        for (int i = 1; i < trs.getLength(); i++) {
            NodeList cells = ((Element) trs.item(i)).getElementsByTagName("td");
            List<String> row = new ArrayList<>();
            for (int c = 0; c < cells.getLength(); c++) {
                row.add(cells.item(c).getTextContent());
            }
            rows.add(row);
        }
        List<Chart> charts = new ArrayList<>();
        NodeList figures = page.getElementsByTagName("figure");
        for (int i = 0; i < figures.getLength(); i++) {
            Element figure = (Element) figures.item(i);
            charts.add(new Chart(figure.getAttribute("data-scenario"), figure.getAttribute("data-mode"),
                                 series(figure)));
        }
        return new ReportPage(rows, charts);
    }

    /** The values a chart's polylines draw, read back through its scale (the top label "N/s", the x axis). */
    private static Map<String, List<Long>> series(Element figure) {
        long top = Long.parseLong(figure.getElementsByTagName("text").item(0).getTextContent().replace("/s", ""));
        double zero = Double.parseDouble(((Element) figure.getElementsByTagName("line").item(0)).getAttribute("y2"));
        Map<String, List<Long>> out = new LinkedHashMap<>();
        NodeList lines = figure.getElementsByTagName("polyline");
        for (int i = 0; i < lines.getLength(); i++) {
            Element line = (Element) lines.item(i);
            List<Long> values = new ArrayList<>();
            for (String point : line.getAttribute("points").split(" ")) {
                double y = Double.parseDouble(point.substring(point.indexOf(',') + 1));
                values.add(Math.round((zero - y) * top / (zero - 10)));
            }
            out.put(line.getAttribute("data-series"), values);
        }
        return out;
    }

    /** The rows of a text table as the CLI prints it (columns apart by two spaces or more), header left out. */
    static List<List<String>> textRows(String table) {
        return table.lines().filter(l -> !l.isBlank()).skip(1).map(l -> List.of(l.trim().split(" {2,}"))).toList();
    }
}
